// agui replay --html: folded sections rendered when opened, answer links from each
// interrupt back to its resume entries, and the severity filter. Recorded text is only
// ever set through textContent or cloned from escaped templates; never parsed as HTML.
"use strict";
(function () {
  function render(details) {
    var template = details.querySelector(":scope > template");
    if (template) {
      details.appendChild(template.content.cloneNode(true));
      template.remove();
    }
  }
  document.addEventListener("toggle", function (event) {
    var target = event.target;
    if (target instanceof HTMLDetailsElement && target.open && target.classList.contains("lazy")) {
      render(target);
    }
  }, true);

  var entries = document.querySelectorAll(".resume-entry[data-target]");
  for (var i = 0; i < entries.length; i++) {
    var entry = entries[i];
    var id = entry.getAttribute("data-target");
    var interrupt = id ? document.getElementById(id) : null;
    if (!interrupt) continue;
    var run = entry.closest(".run");
    var link = document.createElement("a");
    link.href = "#" + entry.id;
    link.className = "to-resume";
    link.textContent = "resume entry of run " + (run ? run.getAttribute("data-run-id") : "?");
    interrupt.querySelector(".answer-links").appendChild(link);
  }
  var continuations = document.querySelectorAll(".run[data-continues]:not([data-continues=''])");
  for (var c = 0; c < continuations.length; c++) {
    var continuation = continuations[c];
    var parent = document.getElementById(continuation.getAttribute("data-continues"));
    if (!parent) continue;
    var paused = parent.querySelectorAll(".interrupt");
    for (var p = 0; p < paused.length; p++) {
      var links = paused[p].querySelector(".answer-links");
      if (links.querySelector("a.to-resume")) continue;
      var note = document.createElement("a");
      note.href = "#" + continuation.id;
      note.className = "to-continuation";
      note.textContent = "continuation run " + continuation.getAttribute("data-run-id") +
        " (its resume entries are not recorded)";
      links.appendChild(note);
    }
  }

  var interrupts = document.querySelectorAll(".interrupt");
  for (var j = 0; j < interrupts.length; j++) {
    var item = interrupts[j];
    var count = item.querySelectorAll(".answer-links a.to-resume").length;
    var status = item.querySelector(".status");
    if (count === 0 && item.querySelector(".answer-links a.to-continuation")) {
      item.classList.add("continued");
      status.textContent = "continued";
    } else if (count === 0) {
      item.classList.add("unanswered");
      status.textContent = "unanswered";
      item.querySelector(".answer-links").textContent = "none";
    } else if (count > 1) {
      item.classList.add("answered-twice");
      status.textContent = "answered " + count + " times";
    } else {
      item.classList.add("answered");
      status.textContent = "answered";
    }
  }

  var mirrors = document.querySelectorAll("#summary .status[data-of]");
  for (var m = 0; m < mirrors.length; m++) {
    var source = document.getElementById(mirrors[m].getAttribute("data-of"));
    if (!source) continue;
    mirrors[m].textContent = source.querySelector(".status").textContent;
    var states = ["answered", "unanswered", "answered-twice", "continued"];
    for (var n = 0; n < states.length; n++) {
      if (source.classList.contains(states[n])) mirrors[m].classList.add(states[n]);
    }
  }

  var boxes = document.querySelectorAll("input[data-severity]");
  for (var k = 0; k < boxes.length; k++) {
    boxes[k].addEventListener("change", function (event) {
      var box = event.target;
      document.body.classList.toggle("hide-" + box.getAttribute("data-severity"), !box.checked);
    });
  }

  function reveal() {
    var hash = decodeURIComponent(location.hash.slice(1));
    var target = hash ? document.getElementById(hash) : null;
    if (!target) return;
    for (var node = target.parentElement; node; node = node.parentElement) {
      if (node instanceof HTMLDetailsElement && !node.open) node.open = true;
    }
    target.scrollIntoView({ block: "center" });
  }
  window.addEventListener("hashchange", reveal);
  reveal();
})();
