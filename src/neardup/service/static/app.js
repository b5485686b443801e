// neardup web UI: small progressive enhancements. Every page works without this script.
"use strict";

(function () {
  // -- queue: live progress without reloading ------------------------------------------------
  function startPolling(box) {
    var url = box.getAttribute("data-poll");
    var fast = parseInt(box.getAttribute("data-interval") || "1000", 10);
    var busy = false;

    function isActive() {
      var body = box.querySelector(".queue-body");
      return !body || body.getAttribute("data-active") === "true";
    }

    function swap(target, source) {
      if (target && source && target.innerHTML !== source.innerHTML) {
        var focused = document.activeElement && box.contains(document.activeElement)
          ? document.activeElement.id : "";
        target.innerHTML = source.innerHTML;
        Array.prototype.forEach.call(source.attributes, function (a) {
          target.setAttribute(a.name, a.value);
        });
        if (focused && document.getElementById(focused)) {
          document.getElementById(focused).focus();
        }
      }
    }

    function tick() {
      if (busy || document.hidden) { return schedule(); }
      busy = true;
      fetch(url, { headers: { Accept: "text/html" }, cache: "no-store", credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          var tmp = document.createElement("div");
          tmp.innerHTML = html;
          swap(box.querySelector(".summary"), tmp.querySelector(".summary"));
          swap(box.querySelector(".queue-body"), tmp.querySelector(".queue-body"));
          box.setAttribute("data-updated", String(Date.now()));
        })
        .catch(function () { /* keep the last state; try again */ })
        .then(function () { busy = false; schedule(); });
    }

    function schedule() {
      window.setTimeout(tick, isActive() ? fast : fast * 5);
    }

    schedule();
  }

  // -- confirmation before removing a library ------------------------------------------------
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    var msg = form.getAttribute && form.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) { ev.preventDefault(); }
  });

  // -- check page: the picked collection's facts ---------------------------------------------
  function watchCollection(select) {
    var about = document.getElementById("about");
    select.addEventListener("change", function () {
      var url = select.getAttribute("data-about") + "?collection=" + encodeURIComponent(select.value);
      fetch(url, { headers: { Accept: "text/html" } })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) { about.innerHTML = html; })
        .catch(function () { /* keep the old panel */ });
    });
  }

  // -- check page: a click on a passage shows its twin on the other side ---------------------
  document.addEventListener("click", function (ev) {
    var mark = ev.target.closest ? ev.target.closest("mark[data-p]") : null;
    if (!mark || !mark.id) { return; }
    var twinId = mark.id.indexOf("-q-") > 0 ? mark.id.replace("-q-", "-s-") : mark.id.replace("-s-", "-q-");
    var twin = document.getElementById(twinId);
    if (!twin) { return; }
    var box = twin.closest(".text");
    if (box) {
      var top = twin.getBoundingClientRect().top - box.getBoundingClientRect().top;
      box.scrollTop += top - box.clientHeight / 3;
    }
    [mark, twin].forEach(function (m) {
      m.classList.add("flash");
      window.setTimeout(function () { m.classList.remove("flash"); }, 1200);
    });
  });

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("[data-poll]"), startPolling);
    var select = document.querySelector("select[data-about]");
    if (select) { watchCollection(select); }
    var results = document.getElementById("results-h");
    if (results) { results.focus(); }
  });
})();
