/* judgebench run viewer. Every text from the data is put in the page with textContent (never innerHTML):
   nothing from a run can run as markup. The data comes as JSON from the local server (api/...) or, in a
   static bundle opened from disk, as data/*.js files that call JBV.load(name, value). */
"use strict";
(function () {
  const source = document.body.getAttribute("data-source");
  const FLAGS = [["disagree_label", "disagrees with the label"], ["disagree_majority", "disagrees with the annotators' majority"],
    ["flip", "order flip (AB and BA differ)"], ["invalid", "invalid"], ["failed", "failed"], ["runs_differ", "runs differ"]];
  const REASONS = ["truncated", "unparseable", "error", "not_attempted", "in_flight", "unrecorded"];
  const NAMES = {A: "A", B: "B", T: "TIE", X: "BOTH_BAD", i: "invalid", f: "failed", "-": "none", "": "none"};
  const PAGE = 200;
  const waiting = {};
  const exCache = {};
  const S = {meta: null, rows: [], list: [], page: 0, cur: -1, run: 0, flags: new Set(), reason: "", slice: "",
    dim: "", text: "", cell: null, mode: "one"};

  window.JBV = {load: function (name, value) { const w = waiting[name]; if (w) { delete waiting[name]; w(value); } }};

  function get(name, apiPath) {
    if (source === "api") {
      return fetch(apiPath).then(function (r) { if (!r.ok) throw new Error(apiPath + ": " + r.status); return r.json(); });
    }
    return new Promise(function (resolve, reject) {
      waiting[name] = resolve;
      const s = document.createElement("script");
      s.src = "data/" + name + ".js";
      s.onerror = function () { reject(new Error("cannot load data/" + name + ".js")); };
      document.body.appendChild(s);
    });
  }

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) { if (k === "cls") e.className = attrs[k]; else e.setAttribute(k, attrs[k]); }
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  // ------------------------------------------------------------------ flags, the same rules as data.py
  function against(label) {
    if (label === "X") return S.meta.both_bad === "exclude" ? "" : "T";
    return (label === "A" || label === "B" || label === "T") ? label : "";
  }
  function flagsOf(row, run) {
    const code = row[7][run], out = new Set();
    const answered = code.split("").filter(function (c) { return "ABT".indexOf(c) >= 0; });
    const target = against(row[3]);
    if (target && answered.some(function (c) { return c !== target; })) out.add("disagree_label");
    const maj = row[4] ? against(row[4]) : "";
    if (maj && answered.some(function (c) { return c !== maj; })) out.add("disagree_majority");
    if ("ABT".indexOf(code[0]) >= 0 && "ABT".indexOf(code[1]) >= 0 && code[0] !== code[1]) out.add("flip");
    if (code.indexOf("i") >= 0) out.add("invalid");
    if (code.indexOf("f") >= 0) out.add("failed");
    if (new Set(row[7]).size > 1) out.add("runs_differ");
    return out;
  }
  function matches(row, skipFlags) {
    const run = S.run;
    if (!skipFlags && S.flags.size) { const f = flagsOf(row, run); for (const x of S.flags) if (!f.has(x)) return false; }
    if (S.reason && row[8][run].split(",").indexOf(S.reason) < 0) return false;
    if (S.slice) { const i = S.slice.indexOf("="), col = S.meta.slice_columns.indexOf(S.slice.slice(0, i));
      if (row[5][col] !== S.slice.slice(i + 1)) return false; }
    if (S.dim && row[2] !== S.dim) return false;
    if (S.cell && !(row[3] === S.cell[0] && row[7][run].indexOf(S.cell[1]) >= 0)) return false;
    if (S.text) { const hay = (row[1] + " " + row[6] + " " + row[5].join(" ")).toLowerCase();
      if (hay.indexOf(S.text) < 0) return false; }
    return true;
  }

  // ------------------------------------------------------------------ the index
  function apply() {
    const base = S.rows.filter(function (r) { return matches(r, true); });
    const counts = {};
    FLAGS.forEach(function (f) { counts[f[0]] = 0; });
    S.list = [];
    for (const r of base) {
      const f = flagsOf(r, S.run);
      for (const x of f) counts[x] += 1;
      let ok = true;
      for (const x of S.flags) if (!f.has(x)) { ok = false; break; }
      if (ok) S.list.push(r);
    }
    FLAGS.forEach(function (f) { $("count-" + f[0]).textContent = String(counts[f[0]]); });
    S.page = 0;
    $("cell").textContent = S.cell ? "cell: label " + NAMES[S.cell[0]] + ", judge " + NAMES[S.cell[1]] + " (clear filters to leave)" : "";
    drawList();
    drawMatrix();
  }

  function drawList() {
    const n = S.list.length, first = S.page * PAGE;
    $("status").textContent = n + " of " + S.rows.length + " examples" + (n ? " (showing " + (first + 1) + "-" + Math.min(n, first + PAGE) + ")" : "");
    const head = $("list").tHead; clear(head);
    const hr = el("tr");
    ["#", "example", "dimension", "label", "majority"].concat(S.meta.runs.map(function (r) { return r.name; }), ["question"]).forEach(function (h) { hr.appendChild(el("th", null, h)); });
    head.appendChild(hr);
    const body = $("list").tBodies[0]; clear(body);
    S.list.slice(first, first + PAGE).forEach(function (row) {
      const tr = el("tr", {"data-n": row[0]});
      if (row[0] === S.cur) tr.className = "cur";
      tr.appendChild(el("td", null, row[0]));
      tr.appendChild(el("td", {cls: "code"}, row[1]));
      tr.appendChild(el("td", null, row[2]));
      tr.appendChild(el("td", null, NAMES[row[3]] || row[3]));
      tr.appendChild(el("td", null, row[4] ? NAMES[row[4]] : ""));
      row[7].forEach(function (code, r) {
        const why = row[8][r] ? " (" + row[8][r].replace(/,/g, ", ") + ")" : "";
        const td = el("td", {cls: "code"}, code.split("").map(function (c) { return NAMES[c]; }).join(" / ") + why);
        if (flagsOf(row, r).has("disagree_label")) td.classList.add("bad");
        tr.appendChild(td);
      });
      tr.appendChild(el("td", {cls: "q"}, row[6]));
      tr.addEventListener("click", function () { location.hash = "ex/" + row[0]; });
      body.appendChild(tr);
    });
  }

  function drawMatrix() {
    const t = $("matrix"); clear(t);
    const counts = {};
    for (const r of S.rows) for (const c of r[7][S.run]) { const k = r[3] + c; counts[k] = (counts[k] || 0) + 1; }
    const hr = el("tr"); hr.appendChild(el("th", null, "label \\ judge"));
    "ABTif".split("").forEach(function (c) { hr.appendChild(el("th", null, NAMES[c])); });
    t.appendChild(hr);
    "ABTX".split("").forEach(function (l) {
      const tr = el("tr"); tr.appendChild(el("th", null, NAMES[l]));
      "ABTif".split("").forEach(function (c) {
        const td = el("td"), k = counts[l + c] || 0;
        const a = el("a", {href: "#cell/" + l + "/" + c, "data-cell": l + c}, k);
        td.appendChild(a); tr.appendChild(td);
      });
      t.appendChild(tr);
    });
  }

  // ------------------------------------------------------------------ Markdown subset, built as DOM nodes
  function inline(parent, text) {
    const re = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\*[^*\n]+\*)|(\[[^\]\n]*\]\([^)\s]*\))/g;
    let last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      const t = m[0];
      if (m[1]) parent.appendChild(el("code", null, t.slice(1, -1)));
      else if (m[2]) parent.appendChild(el("strong", null, t.slice(2, -2)));
      else if (m[3]) parent.appendChild(el("em", null, t.slice(1, -1)));
      else {
        const close = t.indexOf("](");
        const label = t.slice(1, close), url = t.slice(close + 2, -1);
        if (/^https?:\/\//i.test(url)) {
          const a = el("a", {rel: "noopener noreferrer nofollow", target: "_blank"}, label || url);
          a.href = url; parent.appendChild(a);
        } else parent.appendChild(document.createTextNode(t));  // javascript:, data:, relative: stays text
      }
      last = m.index + t.length;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }
  function markdown(text) {
    const root = el("div", {cls: "md"});
    const lines = String(text === null || text === undefined ? "" : text).split("\n");
    let i = 0, para = [], list = null;
    function flush() {
      if (para.length) { const p = el("p"); inline(p, para.join(" ")); root.appendChild(p); para = []; }
      list = null;
    }
    while (i < lines.length) {
      const line = lines[i];
      if (/^\s*```/.test(line)) {
        flush();
        const code = []; i++;
        while (i < lines.length && !/^\s*```/.test(lines[i])) { code.push(lines[i]); i++; }
        const pre = el("pre"); pre.appendChild(el("code", null, code.join("\n"))); root.appendChild(pre);
        i++; continue;
      }
      const h = /^(#{1,6})\s+(.*)$/.exec(line);
      const li = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
      if (h) { flush(); const e = el("h" + Math.min(6, h[1].length + 2)); inline(e, h[2]); root.appendChild(e); }
      else if (li) {
        if (para.length) { const keep = list; flush(); list = keep; }
        if (!list) { list = el(/^\s*\d/.test(line) ? "ol" : "ul"); root.appendChild(list); }
        const item = el("li"); inline(item, li[1]); list.appendChild(item);
      } else if (!line.trim()) flush();
      else { list = null; para.push(line); }
      i++;
    }
    flush();
    return root;
  }

  // ------------------------------------------------------------------ one example
  function exChunk(n) {
    if (source === "api") return "example/" + n;
    const starts = S.meta.ex_chunks; let lo = 0, hi = starts.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (starts[mid] <= n) lo = mid; else hi = mid - 1; }
    return "ex-" + lo;
  }
  function loadExample(n) {
    const name = exChunk(n);
    if (!exCache[name]) {  // the promise is kept: a chunk is loaded once however fast the keys are pressed
      exCache[name] = source === "api"
        ? get(name, "api/" + name).then(function (d) { const by = {}; by[n] = d; return by; })
        : get(name, null).then(function (d) { const by = {}; d.forEach(function (x) { by[x.n] = x; }); return by; });
      exCache[name].catch(function () { delete exCache[name]; });
    }
    return exCache[name];
  }

  function kv(rows) {
    const t = el("table", {cls: "kv"});
    rows.forEach(function (r) { if (r[1] === null || r[1] === undefined || r[1] === "") return;
      const tr = el("tr"); tr.appendChild(el("td", null, r[0])); tr.appendChild(el("td", null, r[1])); t.appendChild(tr); });
    return t;
  }
  function rawBlock(title, text, open) {
    const d = el("details"); if (open) d.open = true;
    d.appendChild(el("summary", null, title));
    d.appendChild(el("pre", {cls: "raw"}, text));
    return d;
  }
  function label(c) { return NAMES[c] || c || ""; }

  function runSection(ex, r, run) {
    const sec = el("section", {"data-run": r});
    sec.appendChild(el("h3", null, run.name + " (" + run.label + ")"));
    const target = against(ex.label);
    ["AB", "BA"].forEach(function (order) {
      const o = run.orders[order];
      if (!o) { sec.appendChild(el("p", {cls: "muted"}, order + ": no judgment in this order")); return; }
      sec.appendChild(el("h4", null, "Order " + order + (order === "AB" ? " (A shown first)" : " (B shown first)")));
      const why = o.status === "INVALID" ? (o.invalid_reason === "truncated" ? "cut off by the token cap (finish_reason " + (o.finish_reason || "length") + ")" : "the reply names no verdict the parser accepts")
        : o.status === "FAILED" ? (o.failure || "error") + ": " + (o.error || "") : "";
      const verdict = el("p");
      verdict.appendChild(el("strong", null, "Verdict: "));
      const v = el("span", {cls: "verdict"}, o.verdict ? o.verdict + " (shown: " + o.verdict_shown + ")" : o.status);
      if (o.verdict && target) v.className = o.verdict.charAt(0) === target ? "good" : "bad";
      verdict.appendChild(v);
      sec.appendChild(verdict);
      sec.appendChild(kv([["status", o.status], ["why", why], ["cost (USD)", o.cost_usd], ["latency (s)", o.latency_s],
        ["tokens in / out", (o.tokens_in === null ? "?" : o.tokens_in) + " / " + (o.tokens_out === null ? "?" : o.tokens_out)],
        ["reasoning tokens", o.reasoning_tokens], ["attempts", o.attempts], ["cached", o.cached ? "yes" : ""],
        ["finish reason", o.finish_reason], ["served model", o.served_model]]));
      sec.appendChild(rawBlock("Raw reply", o.raw === null ? "(none)" : o.raw, true));
      (o.earlier_raw || []).forEach(function (t, k) { sec.appendChild(rawBlock("Earlier unparseable reply " + (k + 1), t, false)); });
      if (o.reasoning) sec.appendChild(rawBlock("Reasoning", o.reasoning, false));
      const p = o.prompt || {};
      if (p.messages) {
        const d = el("details"); d.appendChild(el("summary", null, "Prompt as the judge saw it (" + order + ")"));
        p.messages.forEach(function (m) { d.appendChild(el("div", {cls: "muted"}, m.role)); d.appendChild(el("pre", {cls: "raw"}, m.content)); });
        sec.appendChild(d);
      } else sec.appendChild(el("p", {cls: "muted"}, "Prompt (" + order + "): " + (p.note || "not stored")));
    });
    if (run.members) {
      sec.appendChild(el("h4", null, "Panel members"));
      const t = el("table"); const hr = el("tr"); ["member", "AB", "BA"].forEach(function (h) { hr.appendChild(el("th", null, h)); }); t.appendChild(hr);
      run.members.forEach(function (m) { const tr = el("tr"); tr.appendChild(el("td", null, m.name));
        tr.appendChild(el("td", null, label(m.AB))); tr.appendChild(el("td", null, label(m.BA))); t.appendChild(tr); });
      sec.appendChild(t);
    }
    if (run.repeats) {
      sec.appendChild(el("h4", null, "Repeats (repeat 0 is above)"));
      const t = el("table"); const hr = el("tr"); ["repeat", "AB", "BA"].forEach(function (h) { hr.appendChild(el("th", null, h)); }); t.appendChild(hr);
      run.repeats.forEach(function (m) { const tr = el("tr"); tr.appendChild(el("td", null, m.repeat));
        tr.appendChild(el("td", null, label(m.AB))); tr.appendChild(el("td", null, label(m.BA))); t.appendChild(tr); });
      sec.appendChild(t);
    }
    return sec;
  }

  function drawExample(ex) {
    const box = $("exview"); clear(box);
    const pos = S.list.findIndex(function (r) { return r[0] === ex.n; });
    const bar = el("div", {cls: "bar"});
    [["back to the list (u)", "back"], ["previous (k)", "prev"], ["next (j)", "next"], ["next disagreement (n)", "nextdis"]].forEach(function (b) {
      const btn = el("button", {"data-act": b[1]}, b[0]); btn.addEventListener("click", function () { act(b[1]); }); bar.appendChild(btn);
    });
    if (S.meta.runs.length > 1) {
      const btn = el("button", {id: "sidebyside"}, S.mode === "all" ? "one run" : "side by side");
      btn.addEventListener("click", function () { S.mode = S.mode === "all" ? "one" : "all"; drawExample(ex); });
      bar.appendChild(btn);
    }
    bar.appendChild(el("span", {cls: "muted"}, pos >= 0 ? " " + (pos + 1) + " of " + S.list.length + " in the list" : " (not in the filtered list)"));
    box.appendChild(bar);
    const wrap = el("div", {cls: "ex", "data-n": ex.n});
    wrap.appendChild(el("h2", null, "Example " + ex.id + " · " + ex.dimension));
    wrap.appendChild(kv([["human label", label(ex.label)], ["annotators' majority", ex.majority ? label(ex.majority) : ""],
      ["model A", ex.model_a], ["model B", ex.model_b],
      ["slices", ex.slices ? Object.keys(ex.slices).map(function (k) { return k + "=" + ex.slices[k]; }).join(", ") : ""]]));
    if (ex.votes) {
      const t = el("table", {cls: "votes"}); const hr = el("tr"); hr.appendChild(el("th", null, "annotator")); hr.appendChild(el("th", null, "vote(s)")); t.appendChild(hr);
      Object.keys(ex.votes).forEach(function (a) { const tr = el("tr"); tr.appendChild(el("td", null, a)); tr.appendChild(el("td", null, ex.votes[a].join(", "))); t.appendChild(tr); });
      wrap.appendChild(el("h4", null, "Annotators' votes")); wrap.appendChild(t);
    }
    if (S.meta.runs.length > 1 && S.mode === "all") {
      const t = el("table", {id: "runs-compare"}); const hr = el("tr");
      ["run", "AB", "BA", "matches the label"].forEach(function (h) { hr.appendChild(el("th", null, h)); }); t.appendChild(hr);
      const target = against(ex.label);
      ex.runs.forEach(function (run) {
        const tr = el("tr");
        const codes = ["AB", "BA"].map(function (o) { const x = run.orders[o]; return x ? (x.verdict || x.status) : ""; });
        const answered = codes.filter(function (c) { return c === "A" || c === "B" || c === "TIE"; });
        const ok = target && answered.length && answered.every(function (c) { return c.charAt(0) === target; });
        tr.className = ok ? "match" : "miss";
        [run.name, codes[0], codes[1], target ? (ok ? "yes" : "no") : "n/a"].forEach(function (c) { tr.appendChild(el("td", null, c)); });
        t.appendChild(tr);
      });
      wrap.appendChild(t);
    }
    wrap.appendChild(el("h4", null, "Question"));
    wrap.appendChild(ex.question === undefined || ex.question === null ? el("p", {cls: "muted"}, "not stored (--no-log-text)") : markdown(ex.question));
    const pair = el("div", {cls: "pair"});
    [["Response A", ex.response_a, ex.model_a], ["Response B", ex.response_b, ex.model_b]].forEach(function (x) {
      const s = el("section"); s.appendChild(el("h3", null, x[0] + (x[2] ? " (" + x[2] + ")" : "")));
      s.appendChild(x[1] === undefined || x[1] === null ? el("p", {cls: "muted"}, "not stored") : markdown(x[1]));
      pair.appendChild(s);
    });
    wrap.appendChild(pair);
    const cols = el("div", {cls: "cols"});
    ex.runs.forEach(function (run, r) { if (S.mode === "all" || r === S.run) cols.appendChild(runSection(ex, r, run)); });
    wrap.appendChild(cols);
    box.appendChild(wrap);
  }

  function show(n) {
    S.cur = n;
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();  // keys go to the page
    $("listview").classList.add("hidden"); $("exview").classList.remove("hidden");
    loadExample(n).then(function (by) { if (S.cur === n) drawExample(by[n]); })
      .catch(function (e) { clear($("exview")); $("exview").appendChild(el("p", {cls: "bad"}, String(e))); });
  }
  function showList() {
    const pos = S.list.findIndex(function (r) { return r[0] === S.cur; });
    if (pos >= 0) S.page = Math.floor(pos / PAGE);  // back on the page of the example just read
    $("exview").classList.add("hidden"); $("listview").classList.remove("hidden"); drawList();
  }
  function act(what) {
    if (what === "back") { location.hash = ""; return; }
    if (!S.list.length) return;
    let pos = S.list.findIndex(function (r) { return r[0] === S.cur; });
    if (what === "next") pos = Math.min(S.list.length - 1, pos + 1);
    else if (what === "prev") pos = Math.max(0, pos < 0 ? 0 : pos - 1);
    else if (what === "nextdis") {
      let k = pos + 1;
      while (k < S.list.length && !flagsOf(S.list[k], S.run).has("disagree_label")) k++;
      if (k >= S.list.length) return;
      pos = k;
    }
    location.hash = "ex/" + S.list[pos][0];
  }
  function route() {
    const h = location.hash.replace(/^#/, "");
    let m = /^ex\/(\d+)$/.exec(h);
    if (m) { show(Number(m[1])); return; }
    m = /^cell\/([ABTX])\/([ABTif])$/.exec(h);
    if (m) { S.cell = [m[1], m[2]]; apply(); }
    showList();
  }

  // ------------------------------------------------------------------ controls
  function setup() {
    const meta = S.meta;
    $("task").textContent = "task " + meta.task + " · " + meta.rows + " examples";
    $("runs").textContent = meta.runs.map(function (r, i) { return (i + 1) + ". " + r.name + " = " + r.label; }).join("  ");
    (meta.warnings || []).forEach(function (w) { $("warnings").appendChild(el("div", {cls: "bad"}, w)); });
    meta.runs.forEach(function (r, i) { $("run").appendChild(el("option", {value: i}, r.name)); });
    FLAGS.forEach(function (f) {
      if (f[0] === "runs_differ" && meta.runs.length < 2) return;
      const l = el("label"); const box = el("input", {type: "checkbox", id: "flag-" + f[0], value: f[0]});
      box.addEventListener("change", function () { if (box.checked) S.flags.add(f[0]); else S.flags.delete(f[0]); apply(); });
      l.appendChild(box); l.appendChild(document.createTextNode(" " + f[1] + " ")); l.appendChild(el("span", {cls: "count", id: "count-" + f[0]}, "0"));
      $("flags").appendChild(l);
    });
    if (meta.runs.length < 2) { const hidden = el("span", {id: "count-runs_differ", cls: "hidden"}); $("flags").appendChild(hidden); }
    REASONS.forEach(function (r) { $("reason").appendChild(el("option", {value: r}, r)); });
    meta.slice_columns.forEach(function (c) { (meta.slices[c] || []).forEach(function (v) { $("slice").appendChild(el("option", {value: c + "=" + v}, c + " = " + v)); }); });
    meta.dimensions.forEach(function (d) { $("dimension").appendChild(el("option", {value: d}, d)); });
    $("run").addEventListener("change", function () { S.run = Number($("run").value); apply(); });
    $("reason").addEventListener("change", function () { S.reason = $("reason").value; apply(); });
    $("slice").addEventListener("change", function () { S.slice = $("slice").value; apply(); });
    $("dimension").addEventListener("change", function () { S.dim = $("dimension").value; apply(); });
    $("text").addEventListener("input", function () { S.text = $("text").value.trim().toLowerCase(); apply(); });
    $("prev").addEventListener("click", function () { if (S.page > 0) { S.page--; drawList(); } });
    $("next").addEventListener("click", function () { if ((S.page + 1) * PAGE < S.list.length) { S.page++; drawList(); } });
    $("clear").addEventListener("click", function () {
      S.flags.clear(); S.reason = S.slice = S.dim = S.text = ""; S.cell = null;
      document.querySelectorAll("#flags input").forEach(function (b) { b.checked = false; });
      ["reason", "slice", "dimension", "text"].forEach(function (id) { $(id).value = ""; });
      if (location.hash) location.hash = ""; apply();
    });
    document.addEventListener("keydown", function (e) {
      const t = e.target, typing = t && ((t.tagName === "INPUT" && (t.type === "search" || t.type === "text")) || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
      if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "j") act("next"); else if (e.key === "k") act("prev"); else if (e.key === "n") act("nextdis");
      else if (e.key === "u" || e.key === "Escape") act("back");
    });
    window.addEventListener("hashchange", route);
  }

  get("meta", "api/meta").then(function (meta) {
    S.meta = meta;
    const parts = [];
    for (let k = 0; k < meta.index_chunks; k++) parts.push(get("index-" + k, "api/index/" + k));
    return Promise.all(parts);
  }).then(function (parts) {
    parts.forEach(function (p) { for (const r of p) S.rows.push(r); });
    setup(); apply(); route();
    document.body.setAttribute("data-ready", "1");
  }).catch(function (e) { $("status").textContent = "cannot load the data: " + e; });
})();
