(function () {
  "use strict";
  var toc = document.getElementById("toc");
  var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
  var links = {};
  Array.prototype.forEach.call(document.querySelectorAll("#toc li a"), function (a) {
    links[a.getAttribute("href").slice(1)] = a;
  });
  var current = null;

  function mark(id) {
    if (current) current.classList.remove("current");
    current = links[id] || null;
    if (current && toc) {
      current.classList.add("current");
      var box = toc.getBoundingClientRect(), r = current.getBoundingClientRect();
      if (r.top < box.top || r.bottom > box.bottom) current.scrollIntoView({ block: "nearest" });
    }
  }

  function setAll(open) {
    Array.prototype.forEach.call(document.querySelectorAll("main details"), function (d) {
      d.open = open;
    });
  }

  function stepIndex() {
    var id = location.hash.slice(1);
    for (var i = 0; i < steps.length; i++) if (steps[i].id === id) return i;
    for (var j = 0; j < steps.length; j++) if (steps[j].getBoundingClientRect().top > 1) return j - 1;
    return steps.length - 1;
  }

  function go(delta) {
    if (!steps.length) return;
    var i = Math.min(Math.max(stepIndex() + delta, 0), steps.length - 1);
    location.hash = "#" + steps[i].id;
  }

  function on(id, event, handler) {
    var element = document.getElementById(id);
    if (element) element.addEventListener(event, handler);
  }

  on("expand-all", "click", function () { setAll(true); });
  on("collapse-all", "click", function () { setAll(false); });
  on("errors-only", "change", function (e) { toc.classList.toggle("errors-only", e.target.checked); });
  window.addEventListener("hashchange", function () { mark(location.hash.slice(1)); });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || /INPUT|TEXTAREA|SELECT/.test(e.target.tagName)) return;
    if (e.key === "j") go(1);
    else if (e.key === "k") go(-1);
    else if (e.key === "e") setAll(true);
    else if (e.key === "c") setAll(false);
  });
  mark(location.hash.slice(1));
})();
