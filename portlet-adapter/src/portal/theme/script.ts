/**
 * The portal's one script (`{root}/portal.js`, SPEC 10.3): progressive enhancement only, allowed by
 * the CSP as `script-src 'self'` (no inline script anywhere). Every portlet works without it.
 *
 * Live search: a portlet marks a results region with `data-svc-live-search` and names its search
 * field, the REST path of the search (under `{portal}/api`), the page size and a `<template>` holding
 * one result row rendered for the placeholder subject `data-placeholder` (and the placeholder search
 * `data-search-placeholder` in its URLs and hidden fields). While the person types, the script asks
 * `GET {portal}/api/…?search=` through the pass-through (as the portal session's user), then ONE
 * batch of evaluations for the rows' controls, and rebuilds the rows from the template, dropping
 * every control the check did not allow. Pressing Search still sends the form (all pages, paging).
 */
export const SCRIPT = `"use strict";
(function () {
  var script = document.currentScript;
  var root = script ? new URL(script.src).pathname.replace(/\\/portal\\.js$/, "") : "";
  var RIGHTS = [["read", "READ", "subject"], ["update", "UPDATE", "subject"], ["delete", "DELETE", "subject"], ["lift", "UPDATE", "subject.lockout"]];

  function replaceAll(text, from, to) { return text.split(from).join(to); }

  function fill(node, marks) {
    if (node.nodeType === 3) { node.nodeValue = replaceAll(node.nodeValue, marks.id, marks.idText); return; }
    if (node.nodeType !== 1) return;
    ["href", "action"].forEach(function (name) {
      if (node.hasAttribute(name)) node.setAttribute(name, replaceAll(replaceAll(node.getAttribute(name), marks.id, encodeURIComponent(marks.idText)), marks.search, encodeURIComponent(marks.searchText)));
    });
    if (node.hasAttribute("aria-label")) node.setAttribute("aria-label", replaceAll(node.getAttribute("aria-label"), marks.id, marks.idText));
    if (node.tagName === "INPUT" && node.type === "hidden") node.value = replaceAll(replaceAll(node.value, marks.id, marks.idText), marks.search, marks.searchText);
    for (var child = node.firstChild; child; child = child.nextSibling) fill(child, marks);
  }

  function text(value) { return Array.isArray(value) ? value.join(", ") : value == null ? "" : String(value); }

  function enhance(region) {
    var input = document.getElementById(region.getAttribute("data-input"));
    var template = document.getElementById(region.getAttribute("data-template"));
    var status = document.getElementById(region.getAttribute("data-status"));
    var results = document.getElementById(region.getAttribute("data-results"));
    if (!input || !template || !status || !results) return;
    var api = root + "/api" + region.getAttribute("data-api");
    var context = region.getAttribute("data-context");
    var quantity = region.getAttribute("data-quantity");
    var placeholder = region.getAttribute("data-placeholder");
    var searchPlaceholder = region.getAttribute("data-search-placeholder");
    var filterInput = document.getElementById(region.getAttribute("data-filter"));
    var last = input.value;
    var timer = 0;
    var sequence = 0;

    function show(page, decisions, searchText) {
      var container = document.createElement("div");
      if (page.total === 0) {
        var none = document.createElement("p");
        none.className = "portlet-font";
        none.textContent = "No subject matches.";
        container.appendChild(none);
      } else {
        var wrap = template.content.firstElementChild.cloneNode(true);
        var body = wrap.querySelector("tbody");
        var model = body.querySelector("tr");
        body.removeChild(model);
        page.results.forEach(function (subject, i) {
          var row = model.cloneNode(true);
          row.className = i % 2 ? "portlet-table-alternate" : "portlet-table-body";
          fill(row, { id: placeholder, idText: subject.uniqueId, search: searchPlaceholder, searchText: searchText });
          Array.prototype.forEach.call(row.querySelectorAll("[data-column]"), function (cell) { cell.textContent = text(subject.attributes[cell.getAttribute("data-column")]); });
          RIGHTS.forEach(function (right, r) {
            if (decisions[i * RIGHTS.length + r]) return;
            Array.prototype.forEach.call(row.querySelectorAll('[data-right="' + right[0] + '"]'), function (control) { control.parentNode.removeChild(control); });
          });
          body.appendChild(row);
        });
        wrap.querySelector("caption").textContent = "Subjects 1 to " + page.results.length + " of " + page.total + " in " + context;
        container.appendChild(wrap);
        if (page.results.length < page.total) {
          var more = document.createElement("p");
          more.className = "portlet-font-dim";
          more.textContent = "The first " + page.results.length + " of " + page.total + ". Press Search to page through all of them.";
          container.appendChild(more);
        }
      }
      results.replaceChildren.apply(results, Array.prototype.slice.call(container.childNodes));
      status.textContent = page.total === 1 ? "1 subject matches." : page.total + " subjects match.";
    }

    function run() {
      var searchText = input.value.trim();
      var mine = ++sequence;
      var query = new URLSearchParams({ quantity: quantity });
      if (searchText) query.set("search", searchText);
      if (filterInput && filterInput.value.trim()) query.set("filter", filterInput.value.trim());
      var headers = { accept: "application/json" };
      fetch(api + "?" + query.toString(), { headers: headers, credentials: "same-origin" })
        .then(function (answer) { if (!answer.ok) throw answer; return answer.json(); })
        .then(function (page) {
          var evaluations = [];
          page.results.forEach(function (subject) {
            RIGHTS.forEach(function (right) { evaluations.push({ action: { name: right[1] }, resource: { type: right[2], id: context + "/" + subject.uniqueId } }); });
          });
          if (evaluations.length === 0) return [page, []];
          return fetch(root + "/api/access/v1/evaluations", {
            method: "POST", credentials: "same-origin",
            headers: { accept: "application/json", "content-type": "application/json", "x-requested-with": "XMLHttpRequest" },
            body: JSON.stringify({ evaluations: evaluations })
          }).then(function (answer) { if (!answer.ok) throw answer; return answer.json(); })
            .then(function (decided) { return [page, (decided.evaluations || []).map(function (e) { return e.decision === true; })]; });
        })
        .then(function (both) { if (mine === sequence) show(both[0], both[1], searchText); })
        .catch(function (answer) {
          if (mine !== sequence) return;
          status.textContent = answer && answer.status === 400 ? "Press Search to see why this search was refused." : "The service is unavailable; try again.";
        });
    }

    input.addEventListener("input", function () {
      if (input.value === last) return;
      last = input.value;
      clearTimeout(timer);
      timer = setTimeout(run, 250);
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-svc-live-search]"), enhance);
})();
`;
