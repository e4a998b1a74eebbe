// Starts the page from Trunk.toml's pattern_script (not an inline script, which the pages'
// Content-Security-Policy blocks): imports data-js, instantiates data-wasm. README: Security.
(function () {
  var me = document.currentScript, js = me && me.dataset.js, wasm = me && me.dataset.wasm;
  function fail(err) {
    console.error("shardcalc: the page could not start:", err);
    var p = document.createElement("p");
    p.className = "noscript";
    p.id = "start-error";
    p.textContent = "shardcalc could not start in this browser: " + err;
    document.body.appendChild(p);
  }
  if (!js || !wasm) return fail("start.js needs data-js and data-wasm");
  import(js).then(function (m) { return m.default({ module_or_path: wasm }); }).catch(fail);
})();
