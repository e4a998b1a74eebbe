//! [`Browser`]: headless Chromium on the release bundle, plus the helpers tests use to drive it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

use crate::{dist_dir, target_dir, ChromeDriver, StaticServer, CHROMIUM_ARGS};

/// How long helpers wait for the page before failing the test.
pub const TIMEOUT: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(50);

/// A headless Chromium showing `dist/`, served from 127.0.0.1. Call [`Browser::close`] at the
/// end of a test; if the test panics first, dropping it still kills chromedriver and Chromium.
pub struct Browser {
    // Field order is drop order: the browser must be gone before its profile is deleted.
    client: Client,
    driver: ChromeDriver,
    profile: ProfileDir,
    server: StaticServer,
}

impl Browser {
    /// Serves `dist/`, starts chromedriver and Chromium, and loads `/`.
    pub async fn open() -> Self {
        Self::open_path("/").await
    }

    /// Like [`Browser::open`], but loads `path` (e.g. `/#s=1.eyJ...`, a permalink).
    pub async fn open_path(path: &str) -> Self {
        let server = StaticServer::start(dist_dir()).expect("start the static server for dist/");
        let driver = ChromeDriver::start().expect("start chromedriver");
        let profile = ProfileDir::new();

        let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(ToString::to_string).collect();
        args.push(format!("--user-data-dir={}", profile.0.display()));
        let capabilities = json!({
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": chromium, "args": args },
            "goog:loggingPrefs": { "browser": "ALL" },
        });
        let Value::Object(capabilities) = capabilities else {
            unreachable!("json! object")
        };
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&driver.url())
            .await
            .unwrap_or_else(|err| panic!("start Chromium ({chromium}) via chromedriver: {err}"));

        let browser = Self {
            client,
            driver,
            profile,
            server,
        };
        let url = format!("{}{path}", browser.origin());
        browser
            .client
            .goto(&url)
            .await
            .unwrap_or_else(|err| panic!("load {url}: {err}"));
        browser
    }

    /// Ends the WebDriver session, then stops chromedriver and Chromium.
    pub async fn close(self) {
        let Browser {
            client,
            driver,
            profile,
            server,
        } = self;
        let _ = client.close().await;
        drop((driver, profile, server));
    }

    /// The fantoccini client, for anything the helpers below don't cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The page's origin, e.g. `http://127.0.0.1:41234`.
    pub fn origin(&self) -> String {
        self.server.origin()
    }

    /// The first element matching `css`, waiting up to [`TIMEOUT`] for it to appear.
    pub async fn find(&self, css: &str) -> Element {
        self.client
            .wait()
            .at_most(TIMEOUT)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|err| panic!("no element {css} within {TIMEOUT:?}: {err}"))
    }

    /// The rendered text of the element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        let element = self.find(css).await;
        element
            .text()
            .await
            .unwrap_or_else(|err| panic!("read the text of {css}: {err}"))
    }

    /// Polls until the text of `css` equals `expected`; fails with the last text seen.
    pub async fn wait_for_text(&self, css: &str, expected: &str) {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let text = self.text(css).await;
            if text == expected {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{css} still shows {text:?} after {TIMEOUT:?}, expected {expected:?}"
            );
            tokio::time::sleep(POLL).await;
        }
    }

    /// The current `value` property of an input.
    pub async fn input_value(&self, css: &str) -> String {
        let element = self.find(css).await;
        let value = element.prop("value").await;
        value
            .unwrap_or_else(|err| panic!("read {css}.value: {err}"))
            .unwrap_or_default()
    }

    /// Clears an input and types `value` into it key by key, as a person would.
    pub async fn set_input(&self, css: &str, value: &str) {
        let element = self.find(css).await;
        element
            .clear()
            .await
            .unwrap_or_else(|err| panic!("clear {css}: {err}"));
        element
            .send_keys(value)
            .await
            .unwrap_or_else(|err| panic!("type into {css}: {err}"));
    }

    /// Runs `script` in the page (`arguments[i]` are `args`) and returns what it returns.
    pub async fn eval(&self, script: &str, args: Vec<Value>) -> Value {
        self.client
            .execute(script, args)
            .await
            .unwrap_or_else(|err| panic!("run script {script:?}: {err}"))
    }

    /// `toDataURL()` of the canvas matching `css`: compare two to see whether it was redrawn.
    pub async fn canvas_data_url(&self, css: &str) -> String {
        self.find(css).await;
        let script = "return document.querySelector(arguments[0]).toDataURL();";
        let url = self.eval(script, vec![json!(css)]).await;
        url.as_str()
            .expect("toDataURL returns a string")
            .to_string()
    }

    /// The page's URL and every resource it loaded, as the browser recorded them.
    pub async fn loaded_urls(&self) -> Vec<String> {
        let script = "return [location.href]\
            .concat(performance.getEntriesByType('resource').map(e => e.name));";
        let urls = self.eval(script, vec![]).await;
        let urls = urls.as_array().expect("an array of URLs");
        urls.iter()
            .filter_map(|url| url.as_str().map(str::to_string))
            .collect()
    }

    /// Fails unless everything the page loaded came from the local server, without errors.
    pub async fn assert_only_local_requests(&self) {
        let origin = format!("{}/", self.origin());
        let urls = self.loaded_urls().await;
        let foreign: Vec<_> = urls
            .iter()
            .filter(|url| !url.starts_with(&origin))
            .collect();
        assert!(
            foreign.is_empty(),
            "the page loaded resources from elsewhere: {foreign:?}"
        );
        let failed: Vec<_> = self
            .server
            .requests()
            .into_iter()
            .filter(|r| r.status != 200)
            .collect();
        assert!(
            failed.is_empty(),
            "the local server answered with errors: {failed:?}"
        );
    }

    /// Browser log entries of level SEVERE (console.error, uncaught exceptions, failed loads)
    /// since the previous call; chromedriver empties its log buffer on each read.
    pub async fn console_errors(&self) -> Vec<String> {
        let entries = self
            .client
            .issue_cmd(BrowserLog)
            .await
            .unwrap_or_else(|err| panic!("read the browser log: {err}"));
        let entries = entries.as_array().cloned().unwrap_or_default();
        entries
            .iter()
            .filter(|entry| entry["level"] == "SEVERE")
            .map(|entry| entry["message"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// Fails if the page logged any error since the previous read of the log.
    pub async fn assert_no_console_errors(&self) {
        let errors = self.console_errors().await;
        assert!(errors.is_empty(), "the page logged errors: {errors:#?}");
    }

    /// Saves a PNG of the viewport to `target/screenshots/<name>.png` and returns the path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self
            .client
            .screenshot()
            .await
            .unwrap_or_else(|err| panic!("screenshot: {err}"));
        let dir = target_dir().join("screenshots");
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|err| panic!("create {}: {err}", dir.display()));
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
        path
    }
}

/// chromedriver's `POST /session/{id}/se/log` for the `browser` log (needs the capability
/// `goog:loggingPrefs: {browser: ALL}`, which [`Browser::open`] sets).
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _url: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "type": "browser" }).to_string()),
        )
    }
}

/// A fresh, empty Chromium profile directory, deleted on drop.
struct ProfileDir(PathBuf);

impl ProfileDir {
    fn new() -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "shardcalc-e2e-profile-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        );
        let dir = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|err| panic!("create {}: {err}", dir.display()));
        Self(dir)
    }
}

impl Drop for ProfileDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
