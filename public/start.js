// Starts a shardcalc page: imports the page's wasm-bindgen module and instantiates its wasm.
// trunk's own start-up is an inline <script type="module">, which the pages' Content-Security-
// Policy (script-src 'self', no 'unsafe-inline') blocks, so Trunk.toml's `pattern_script`
// writes <script defer src="./start.js" data-js="..." data-wasm="..."> instead. Relative URLs:
// the site works from any sub-path.
"use strict";
(function () {
  var me = document.currentScript;
  var js = me && me.dataset.js;
  var wasm = me && me.dataset.wasm;
  function fail(err) {
    console.error("shardcalc: the page could not start:", err);
    var p = document.createElement("p");
    p.className = "noscript";
    p.id = "start-error";
    p.textContent = "shardcalc could not start in this browser: " + err;
    document.body.appendChild(p);
  }
  if (!js || !wasm) {
    fail("start.js was loaded without data-js and data-wasm");
    return;
  }
  import(js)
    .then(function (bindings) {
      return bindings.default({ module_or_path: wasm });
    })
    .catch(fail);
})();
