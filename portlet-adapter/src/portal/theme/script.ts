/**
 * The portal's one script (`{root}/portal.js`, SPEC 10.3): progressive enhancement only, allowed by
 * the CSP as `script-src 'self'` (no inline script anywhere). Every portlet works without it.
 *
 * Live search: a portlet marks a results region with `data-svc-live-search` and names its search
 * field, the REST path of the search (under `{portal}/api`), the page size and a `<template>` holding
 * one result row rendered for the placeholder subject `data-placeholder` (and the placeholder search
 * `data-search-placeholder` in its URLs and hidden fields), and the order (`data-sort`, `data-order`).
 * While the person types, the script asks `GET {portal}/api/…?search=…&include=status` through the
 * pass-through (as the portal session's user), then ONE batch of evaluations for the rows' controls,
 * and rebuilds the rows from the template: each row's status, every control the check did not allow
 * dropped, "Lift lockout" only on locked rows, a checkbox only where a bulk action is allowed. The
 * Export CSV link (`data-export`) follows the typed search. Pressing Search still sends the form
 * (all pages, paging).
 *
 * Bulk selection: the header of a result table's checkbox column (`th.svc-select`) gets a "Select
 * all on this page" box; without scripts each row is checked by itself.
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
    if (node.tagName === "INPUT" && (node.type === "hidden" || node.type === "checkbox")) node.value = replaceAll(replaceAll(node.value, marks.id, marks.idText), marks.search, marks.searchText);
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
    var exportLink = document.getElementById(region.getAttribute("data-export"));
    var sort = region.getAttribute("data-sort") || "";
    var order = region.getAttribute("data-order") || "asc";
    var self = region.getAttribute("data-self") || "";
    var last = input.value;
    var timer = 0;
    var sequence = 0;

    function timeText(iso) { return /^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}/.test(iso) ? iso.slice(0, 10) + " " + iso.slice(11, 16) + " UTC" : iso; }

    function statusOf(status) {
      if (!status) return ["unknown", "Unknown"];
      var locked = status.locked ? (status.lockedUntil ? "Locked until " + timeText(status.lockedUntil) : "Locked") : "";
      if (status.disabled) return [status.locked ? "locked" : "disabled", locked ? "Disabled; " + locked.charAt(0).toLowerCase() + locked.slice(1) : "Disabled"];
      return locked ? ["locked", locked] : ["active", "Active"];
    }

    function drop(row, right) {
      Array.prototype.forEach.call(row.querySelectorAll('[data-right="' + right + '"]'), function (control) { control.parentNode.removeChild(control); });
    }

    function show(page, decisions, searchText) {
      var container = document.createElement("div");
      if (page.total === 0) {
        var none = document.createElement("p");
        none.className = "portlet-font";
        none.textContent = "No subject matches.";
        container.appendChild(none);
      } else {
        var fragment = template.content.cloneNode(true);
        // The headers' sort links and the bulk form's hidden fields carry the typed search.
        fill(fragment, { id: placeholder, idText: placeholder, search: searchPlaceholder, searchText: searchText });
        var body = fragment.querySelector("tbody");
        var model = body.querySelector("tr");
        body.removeChild(model);
        page.results.forEach(function (subject, i) {
          var row = model.cloneNode(true);
          row.className = i % 2 ? "portlet-table-alternate" : "portlet-table-body";
          fill(row, { id: placeholder, idText: subject.uniqueId, search: searchPlaceholder, searchText: searchText });
          Array.prototype.forEach.call(row.querySelectorAll("[data-column]"), function (cell) { cell.textContent = text(subject.attributes[cell.getAttribute("data-column")]); });
          Array.prototype.forEach.call(row.querySelectorAll("[data-status] .svc-status"), function (badge) {
            var status = statusOf(subject.status);
            badge.className = "svc-status svc-status-" + status[0];
            badge.textContent = status[1];
          });
          var allowed = {};
          RIGHTS.forEach(function (right, r) { allowed[right[0]] = decisions[i * RIGHTS.length + r] === true; });
          RIGHTS.forEach(function (right) { if (!allowed[right[0]]) drop(row, right[0]); });
          if (!(subject.status && subject.status.locked)) drop(row, "lift");
          if (!(allowed.update || allowed["delete"]) || subject.uniqueId === self) drop(row, "select");
          body.appendChild(row);
        });
        fragment.querySelector("caption").textContent = "Subjects 1 to " + page.results.length + " of " + page.total + " in " + context;
        container.appendChild(fragment);
        if (page.results.length < page.total) {
          var more = document.createElement("p");
          more.className = "portlet-font-dim";
          more.textContent = "The first " + page.results.length + " of " + page.total + ". Press Search to page through all of them.";
          container.appendChild(more);
        }
      }
      results.replaceChildren.apply(results, Array.prototype.slice.call(container.childNodes));
      selectAll(results);
      status.textContent = page.total === 1 ? "1 subject matches." : page.total + " subjects match.";
    }

    function query(searchText) {
      var q = new URLSearchParams();
      if (searchText) q.set("search", searchText);
      if (filterInput && filterInput.value.trim()) q.set("filter", filterInput.value.trim());
      if (sort) q.set("sort", sort);
      if (order === "desc") q.set("order", "desc");
      return q;
    }

    function run() {
      var searchText = input.value.trim();
      var mine = ++sequence;
      var q = query(searchText);
      if (exportLink) {
        var csv = query(searchText);
        csv.set("format", "csv");
        exportLink.setAttribute("href", api + "?" + csv.toString());
      }
      q.set("quantity", quantity);
      q.set("include", "status");
      var headers = { accept: "application/json" };
      fetch(api + "?" + q.toString(), { headers: headers, credentials: "same-origin" })
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

  // Bulk selection: a "Select all on this page" box in the header of each result table's checkbox column.
  function selectAll(scope) {
    Array.prototype.forEach.call(scope.querySelectorAll("table th.svc-select"), function (head) {
      if (head.querySelector("input")) return;
      var table = head.closest("table");
      var label = document.createElement("label");
      label.className = "svc-select-label";
      var box = document.createElement("input");
      box.type = "checkbox";
      var text = document.createElement("span");
      text.className = "visually-hidden";
      text.textContent = "Select all on this page";
      label.appendChild(box);
      label.appendChild(text);
      head.replaceChildren(label);
      box.addEventListener("change", function () {
        Array.prototype.forEach.call(table.querySelectorAll('tbody input[type="checkbox"][name="selected"]'), function (row) { row.checked = box.checked; });
      });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("[data-svc-live-search]"), enhance);
  selectAll(document);
})();
`;
