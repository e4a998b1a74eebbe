//! [`Browser`]: headless Chromium on the release bundle, plus the helpers tests use to drive it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

use crate::{dist_dir, target_dir, ChromeDriver, ServeOptions, StaticServer, CHROMIUM_ARGS};

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
        Self::open_with(ServeOptions::default(), path).await
    }

    /// Serves `dist/` as `options` say (under a sub-path, with extra headers) and loads `path`
    /// under it (`path` relative to the served directory, e.g. `saved.html#s=...`).
    pub async fn open_with(options: ServeOptions, path: &str) -> Self {
        let server = StaticServer::start_with(dist_dir(), options).expect("start the static server for dist/");
        let url = format!("{}{}{}", server.origin(), server.prefix(), path.trim_start_matches('/'));
        Self::launch(server, &url).await
    }

    /// Loads an arbitrary URL, e.g. a `file://` page (`dist/` is served too, unused).
    pub async fn open_url(url: &str) -> Self {
        let server = StaticServer::start(dist_dir()).expect("start the static server for dist/");
        Self::launch(server, url).await
    }

    async fn launch(server: StaticServer, url: &str) -> Self {
        let driver = ChromeDriver::start().expect("start chromedriver");
        let profile = ProfileDir::new();

        let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(ToString::to_string).collect();
        args.push(format!("--user-data-dir={}", profile.0.display()));
        let capabilities = json!({
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": chromium, "args": args },
            "goog:loggingPrefs": { "browser": "ALL", "performance": "ALL" },
        });
        let Value::Object(capabilities) = capabilities else { unreachable!("json! object") };
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&driver.url())
            .await
            .unwrap_or_else(|err| panic!("start Chromium ({chromium}) via chromedriver: {err}"));

        let browser = Self { client, driver, profile, server };
        // The log so far is the browser's own start page (chrome:// URLs), not this test's.
        let _ = browser.network_requests().await;
        browser.goto_url(url).await;
        browser
    }

    /// Navigates to `url`.
    pub async fn goto_url(&self, url: &str) {
        self.client.goto(url).await.unwrap_or_else(|err| panic!("load {url}: {err}"));
    }

    /// Navigates to `path` under the served directory (e.g. `saved.html`).
    pub async fn goto(&self, path: &str) {
        let url = format!("{}{}{}", self.origin(), self.server.prefix(), path.trim_start_matches('/'));
        self.goto_url(&url).await;
    }

    /// Reloads the page.
    pub async fn reload(&self) {
        self.client.refresh().await.unwrap_or_else(|err| panic!("reload: {err}"));
    }

    /// Ends the WebDriver session, then stops chromedriver and Chromium.
    pub async fn close(self) {
        let Browser { client, driver, profile, server } = self;
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
        element.text().await.unwrap_or_else(|err| panic!("read the text of {css}: {err}"))
    }

    /// Polls until the text of `css` equals `expected`; fails with the last text seen.
    pub async fn wait_for_text(&self, css: &str, expected: &str) {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let text = self.text(css).await;
            if text == expected {
                return;
            }
            assert!(Instant::now() < deadline, "{css} still shows {text:?} after {TIMEOUT:?}, expected {expected:?}");
            tokio::time::sleep(POLL).await;
        }
    }

    /// The current `value` property of an input.
    pub async fn input_value(&self, css: &str) -> String {
        let element = self.find(css).await;
        let value = element.prop("value").await;
        value.unwrap_or_else(|err| panic!("read {css}.value: {err}")).unwrap_or_default()
    }

    /// Clears an input and types `value` into it key by key, as a person would.
    pub async fn set_input(&self, css: &str, value: &str) {
        let element = self.find(css).await;
        element.clear().await.unwrap_or_else(|err| panic!("clear {css}: {err}"));
        element.send_keys(value).await.unwrap_or_else(|err| panic!("type into {css}: {err}"));
    }

    /// Runs `script` in the page (`arguments[i]` are `args`) and returns what it returns.
    pub async fn eval(&self, script: &str, args: Vec<Value>) -> Value {
        self.client.execute(script, args).await.unwrap_or_else(|err| panic!("run script {script:?}: {err}"))
    }

    /// `toDataURL()` of the canvas matching `css`: compare two to see whether it was redrawn.
    pub async fn canvas_data_url(&self, css: &str) -> String {
        self.find(css).await;
        let script = "return document.querySelector(arguments[0]).toDataURL();";
        let url = self.eval(script, vec![json!(css)]).await;
        url.as_str().expect("toDataURL returns a string").to_string()
    }

    /// The page's URL and every resource it loaded, as the browser recorded them.
    pub async fn loaded_urls(&self) -> Vec<String> {
        let script = "return [location.href]\
            .concat(performance.getEntriesByType('resource').map(e => e.name));";
        let urls = self.eval(script, vec![]).await;
        let urls = urls.as_array().expect("an array of URLs");
        urls.iter().filter_map(|url| url.as_str().map(str::to_string)).collect()
    }

    /// Fails unless everything the page loaded came from the local server, without errors.
    pub async fn assert_only_local_requests(&self) {
        let origin = format!("{}/", self.origin());
        let urls = self.loaded_urls().await;
        let foreign: Vec<_> = urls.iter().filter(|url| !url.starts_with(&origin)).collect();
        assert!(foreign.is_empty(), "the page loaded resources from elsewhere: {foreign:?}");
        let failed: Vec<_> = self.server.requests().into_iter().filter(|r| r.status != 200).collect();
        assert!(failed.is_empty(), "the local server answered with errors: {failed:?}");
    }

    /// Every URL the browser requested since the previous read, from its network log
    /// (chromedriver's `performance` log: `Network.requestWillBeSent`), `data:` and `blob:`
    /// URLs included.
    pub async fn network_requests(&self) -> Vec<String> {
        let entries = self
            .client
            .issue_cmd(BrowserLog("performance"))
            .await
            .unwrap_or_else(|err| panic!("read the performance log: {err}"));
        let entries = entries.as_array().cloned().unwrap_or_default();
        entries
            .iter()
            .filter_map(|entry| serde_json::from_str::<Value>(entry["message"].as_str()?).ok())
            .filter(|m| m["message"]["method"] == "Network.requestWillBeSent")
            .filter_map(|m| m["message"]["params"]["request"]["url"].as_str().map(str::to_string))
            .collect()
    }

    /// Fails if the network log since the previous read holds a request that leaves
    /// `allowed` (an origin such as `http://127.0.0.1:4000`, or `file://`); `data:` and
    /// `blob:` URLs never leave the page, and `chrome://` ones are the browser's own pages
    /// (e.g. its start page), never the network. Returns the requests seen.
    pub async fn assert_network_stays_within(&self, allowed: &str) -> Vec<String> {
        let urls = self.network_requests().await;
        let foreign: Vec<&String> = urls
            .iter()
            .filter(|u| {
                !(u.starts_with("data:")
                    || u.starts_with("blob:")
                    || u.starts_with(allowed)
                    || u.starts_with("chrome://"))
            })
            .collect();
        assert!(foreign.is_empty(), "requests outside {allowed}: {foreign:#?}");
        urls
    }

    /// Replaces downloads with a record in the page: afterwards, [`Browser::downloads`] lists
    /// every file the page offered (name, type, content) instead of the browser saving it.
    pub async fn capture_downloads(&self) {
        let script = "window.__downloads = []; window.__blobs = new Map();\
            const create = URL.createObjectURL.bind(URL);\
            URL.createObjectURL = (b) => { const u = create(b); window.__blobs.set(u, b); return u; };\
            HTMLAnchorElement.prototype.click = function () {\
              window.__downloads.push({ name: this.download, href: this.href }); };";
        self.eval(script, vec![]).await;
    }

    /// Waits until the page has offered `n` files since [`Browser::capture_downloads`]. A
    /// chart's SVG comes back from the background worker, so its download can land after
    /// that of a button clicked later; tests that check the order wait after each click.
    pub async fn wait_for_downloads(&self, n: usize) {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let count = self.eval("return (window.__downloads || []).length;", vec![]).await.as_u64().unwrap_or(0);
            if count >= n as u64 {
                return;
            }
            assert!(Instant::now() < deadline, "{count} downloads after {TIMEOUT:?}, expected {n}");
            tokio::time::sleep(POLL).await;
        }
    }

    /// Files the page offered since [`Browser::capture_downloads`]: `(name, type, text)`,
    /// where `text` is the content for `blob:` downloads and the URL itself for `data:` ones.
    pub async fn downloads(&self) -> Vec<(String, String, String)> {
        let script = "const done = arguments[arguments.length - 1];\
            Promise.all((window.__downloads || []).map(async (d) => {\
              const blob = window.__blobs.get(d.href);\
              if (blob) return [d.name, blob.type, await blob.text()];\
              return [d.name, d.href.split(';')[0].replace('data:', ''), d.href];\
            })).then(done, (e) => done(String(e)));";
        let value = self
            .client
            .execute_async(script, vec![])
            .await
            .unwrap_or_else(|err| panic!("read the captured downloads: {err}"));
        let list = value.as_array().unwrap_or_else(|| panic!("captured downloads: {value}"));
        list.iter()
            .map(|d| {
                let part = |i: usize| d[i].as_str().unwrap_or_default().to_string();
                (part(0), part(1), part(2))
            })
            .collect()
    }

    /// Browser log entries of level SEVERE (console.error, uncaught exceptions, failed loads)
    /// since the previous call; chromedriver empties its log buffer on each read.
    pub async fn console_errors(&self) -> Vec<String> {
        let entries = self
            .client
            .issue_cmd(BrowserLog("browser"))
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

    /// Runs a Chrome DevTools Protocol command through chromedriver (`goog/cdp/execute`) and
    /// returns its result, e.g. `Page.addScriptToEvaluateOnNewDocument`.
    pub async fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.client
            .issue_cmd(Cdp(json!({ "cmd": cmd, "params": params })))
            .await
            .unwrap_or_else(|err| panic!("CDP {cmd}: {err}"))
    }

    /// Runs `script` at the start of every document loaded from now on, before the page's own
    /// scripts (CDP `Page.addScriptToEvaluateOnNewDocument`): a probe that must see the page
    /// from navigation start, such as the browser benchmark's paint timing.
    pub async fn run_on_every_new_document(&self, script: &str) {
        self.cdp("Page.addScriptToEvaluateOnNewDocument", json!({ "source": script })).await;
    }

    /// Saves a PNG of the viewport to `target/screenshots/<name>.png` and returns the path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.client.screenshot().await.unwrap_or_else(|err| panic!("screenshot: {err}"));
        let dir = target_dir().join("screenshots");
        std::fs::create_dir_all(&dir).unwrap_or_else(|err| panic!("create {}: {err}", dir.display()));
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
        path
    }
}

/// chromedriver's `POST /session/{id}/se/log` for one log (`browser` or `performance`; needs
/// the capability `goog:loggingPrefs`, which [`Browser::open`] sets).
#[derive(Debug)]
struct BrowserLog(&'static str);

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(&self, base: &url::Url, session: Option<&str>) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(json!({ "type": self.0 }).to_string()))
    }
}

/// chromedriver's `POST /session/{id}/goog/cdp/execute`: one DevTools Protocol command
/// (`{"cmd": ..., "params": {...}}`).
#[derive(Debug)]
struct Cdp(Value);

impl WebDriverCompatibleCommand for Cdp {
    fn endpoint(&self, base: &url::Url, session: Option<&str>) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/goog/cdp/execute", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.0.to_string()))
    }
}

/// A fresh, empty Chromium profile directory, deleted on drop.
struct ProfileDir(PathBuf);

impl ProfileDir {
    fn new() -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("shardcalc-e2e-profile-{}-{}", std::process::id(), COUNT.fetch_add(1, Ordering::Relaxed));
        let dir = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|err| panic!("create {}: {err}", dir.display()));
        Self(dir)
    }
}

impl Drop for ProfileDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
