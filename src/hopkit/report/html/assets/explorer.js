/* hopkit report: the question explorer.
 *
 * The list comes from html-report/index.js (window.HOPKIT_INDEX); each question's page is
 * pre-rendered HTML in a chunk file, html-report/questions/chunk-NNNNN.js, loaded on demand
 * with a <script> tag (browsers refuse to fetch file:// URLs from script) and calling hopkitChunk(n, pages),
 * the pages gzipped and base64-encoded.
 */
(function () {
  "use strict";
  var D = window.HOPKIT_INDEX;
  var PAGE = D.pageSize;
  var METRIC_COLUMN = {em: 1, f1: 2, cover_em: 3, llm_accuracy: 4};
  var state = {dataset: "", run: "", outcome: "all", metric: D.metrics[0][0], search: "", page: 0};
  var chunks = {};
  var waiting = {};
  var failures = {};
  var byKey = {};
  var shown = [];
  var current = null;
  var $ = function (id) { return document.getElementById(id); };

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"}[c];
    });
  }
  function keyOf(q) { return D.datasets[q[0]] + "/" + q[1]; }

  D.questions.forEach(function (q, i) {
    var answers = Object.keys(q[4]).map(function (r) { return q[4][r][0]; });
    q.hay = [q[2]].concat(q[3], answers).join(" \u0001 ").toLowerCase();
    byKey[keyOf(q)] = i;
  });

  /* A chunk's pages come as a JSON list, or gzipped and base64-encoded (a string). */
  function inflate(packed) {
    var bytes = Uint8Array.from(atob(packed), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  window.hopkitChunk = function (n, pages) {
    var ready = typeof pages === "string" ? inflate(pages) : Promise.resolve(pages);
    ready.then(function (list) {
      chunks[n] = list;
      (waiting[n] || []).forEach(function (done) { done(); });
      delete waiting[n];
    }, function (error) {
      var failed = waiting[n] || [];
      delete waiting[n];
      failures[n] = "could not read chunk " + n + " (" + error + "); this browser may lack DecompressionStream " +
        "(Chrome/Edge 80+, Firefox 113+, Safari 16.4+)";
      failed.forEach(function (done) { done(); });
    });
  };

  function loadChunk(n, done, failed) {
    if (chunks[n] || failures[n]) { done(); return; }
    if (waiting[n]) { waiting[n].push(done); return; }
    waiting[n] = [done];
    var script = document.createElement("script");
    script.src = D.chunkPath + "chunk-" + String(n).padStart(5, "0") + ".js";
    script.onerror = function () { delete waiting[n]; failed(script.src); };
    document.head.appendChild(script);
  }

  function correct(values) {
    var v = values[METRIC_COLUMN[state.metric]];
    return v === null || v === undefined ? null : v >= 0.5;
  }

  function outcomes(q, runs) {
    return runs.map(function (r) { return correct(q[4][r]); }).filter(function (v) { return v !== null; });
  }

  function matches(q) {
    if (state.dataset !== "" && D.datasets[q[0]] !== state.dataset) return false;
    var runs = Object.keys(q[4]);
    if (state.run !== "") {
      if (!(state.run in q[4])) return false;
      runs = [state.run];
    }
    if (state.outcome !== "all") {
      var seen = outcomes(q, state.outcome === "disagree" ? Object.keys(q[4]) : runs);
      if (!seen.length) return false;
      var some = seen.indexOf(true) >= 0, none = seen.indexOf(false) < 0;
      if (state.outcome === "correct" && !none) return false;
      if (state.outcome === "wrong" && some) return false;
      if (state.outcome === "disagree" && (!some || none)) return false;
    }
    return !state.search || q.hay.indexOf(state.search) >= 0;
  }

  function marks(q) {
    return Object.keys(q[4]).map(function (r) {
      var ok = correct(q[4][r]);
      var run = D.runs[r];
      var cls = q[4][r][5] ? "failed" : ok === null ? "na" : ok ? "ok" : "bad";
      var sign = q[4][r][5] ? "!" : ok === null ? "?" : ok ? "\u2713" : "\u2717";
      return "<span class=\"mark " + cls + "\" title=\"" + esc(run.label + ": " + q[4][r][0]) + "\">" +
        esc(run.label) + " " + sign + "</span>";
    }).join(" ");
  }

  function renderList() {
    shown = [];
    D.questions.forEach(function (q, i) { if (matches(q)) shown.push(i); });
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * PAGE;
    $("count").textContent = shown.length + " of " + D.questions.length + " questions match";
    $("qlist").innerHTML = shown.slice(start, start + PAGE).map(function (i) {
      var q = D.questions[i];
      return "<li class=\"q" + (i === current ? " selected" : "") + "\" data-i=\"" + i + "\">" +
        "<a href=\"#q=" + encodeURIComponent(keyOf(q)) + "\"><span class=\"qtext\">" + esc(q[2]) + "</span>" +
        "<span class=\"qmeta\">" + esc(D.datasets[q[0]]) + " \u00b7 gold: " + esc(q[3].join(" | ")) + "</span>" +
        "<span class=\"marks\">" + marks(q) + "</span></a></li>";
    }).join("");
    $("page").textContent = "page " + (state.page + 1) + " of " + pages;
    $("prev").disabled = state.page === 0;
    $("next").disabled = state.page >= pages - 1;
  }

  function show(i) {
    current = i;
    var n = Math.floor(i / D.chunkSize);
    var detail = $("detail");
    detail.innerHTML = "<p class=\"muted\">Loading the question\u2026</p>";
    loadChunk(n, function () {
      if (current !== i) return;
      if (!chunks[n]) { detail.innerHTML = "<p class=\"error\">" + esc(failures[n]) + "</p>"; return; }
      detail.innerHTML = chunks[n][i % D.chunkSize];
      detail.scrollTop = 0;
      var focus = state.run !== "" && detail.querySelector("section.run[data-run=\"" + state.run + "\"]");
      if (focus) focus.classList.add("focus");
    }, function (src) {
      detail.innerHTML = "<p class=\"error\">Could not load " + esc(src) + "; the report folder is incomplete.</p>";
    });
    Array.prototype.forEach.call(document.querySelectorAll("#qlist li"), function (li) {
      li.classList.toggle("selected", Number(li.getAttribute("data-i")) === i);
    });
  }

  function fillSelects() {
    $("f-dataset").innerHTML = "<option value=\"\">all datasets</option>" + D.datasets.map(function (d) {
      return "<option value=\"" + esc(d) + "\">" + esc(d) + "</option>";
    }).join("");
    $("f-metric").innerHTML = D.metrics.map(function (m) {
      return "<option value=\"" + m[0] + "\">" + esc(m[1]) + "</option>";
    }).join("");
    fillRuns();
  }

  function fillRuns() {
    var options = "<option value=\"\">all runs</option>";
    D.runs.forEach(function (run, r) {
      if (state.dataset === "" || run.dataset === state.dataset) {
        options += "<option value=\"" + r + "\">" + esc(run.label) +
          (D.datasets.length > 1 ? " (" + esc(run.dataset) + ")" : "") + "</option>";
      }
    });
    $("f-run").innerHTML = options;
    if (state.run !== "" && D.runs[state.run].dataset !== state.dataset && state.dataset !== "") state.run = "";
    $("f-run").value = state.run;
  }

  function readHash() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (params.has("dataset")) { state.dataset = params.get("dataset"); $("f-dataset").value = state.dataset; fillRuns(); }
    if (params.has("run")) {
      var id = params.get("run");
      D.runs.forEach(function (run, r) { if (run.run_id === id) state.run = String(r); });
      $("f-run").value = state.run;
    }
    if (params.has("q") && params.get("q") in byKey) return byKey[params.get("q")];
    return null;
  }

  function onFilter() {
    state.run = $("f-run").value;
    if ($("f-dataset").value !== state.dataset) {
      state.dataset = $("f-dataset").value;
      fillRuns();
    }
    state.outcome = $("f-outcome").value;
    state.metric = $("f-metric").value;
    state.search = $("f-search").value.trim().toLowerCase();
    state.page = 0;
    renderList();
  }

  function openParagraph(id) {
    var target = document.getElementById(id);
    if (!target) return;
    for (var el = target; el; el = el.parentElement) { if (el.tagName === "DETAILS") el.open = true; }
    target.scrollIntoView({block: "center"});
    target.classList.remove("flash");
    void target.offsetWidth;
    target.classList.add("flash");
  }

  ["f-dataset", "f-run", "f-outcome", "f-metric"].forEach(function (id) { $(id).addEventListener("change", onFilter); });
  $("f-search").addEventListener("input", onFilter);
  $("prev").addEventListener("click", function () { state.page -= 1; renderList(); });
  $("next").addEventListener("click", function () { state.page += 1; renderList(); });
  $("detail").addEventListener("click", function (event) {
    var link = event.target.closest("a[href^='#para-'], a[href^='#run-']");
    if (!link) return;
    event.preventDefault();
    openParagraph(link.getAttribute("href").slice(1));
  });
  window.addEventListener("hashchange", function () {
    var i = readHash();
    if (i !== null) show(i);
  });

  fillSelects();
  var first = readHash();
  state.outcome = $("f-outcome").value;
  renderList();
  if (first !== null) show(first);
})();
