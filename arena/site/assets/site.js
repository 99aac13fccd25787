/* Sortable tables: click (or Enter on) a header of a table.sortable to sort by that column;
 * click again to reverse. Cells sort by their data-value attribute (else their text); numeric
 * columns (th data-type="number") compare as numbers, and empty values always go last. */
(function () {
  "use strict";

  function cellKey(row, col) {
    var cell = row.cells[col];
    if (!cell) return "";
    var value = cell.getAttribute("data-value");
    return value === null ? cell.textContent.trim() : value;
  }

  function sortTable(table, col, th) {
    var direction = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    Array.prototype.forEach.call(th.parentNode.cells, function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", direction);
    var numeric = th.getAttribute("data-type") === "number";
    var sign = direction === "ascending" ? 1 : -1;
    var body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (row, i) {
      var text = cellKey(row, col);
      var key = numeric ? parseFloat(text) : text.toLowerCase();
      return { row: row, i: i, empty: text === "" || (numeric && isNaN(key)), key: key };
    });
    rows.sort(function (a, b) {
      if (a.empty !== b.empty) return a.empty ? 1 : -1;  // undefined values last, either way
      var c = 0;
      if (!a.empty) c = numeric ? a.key - b.key : a.key.localeCompare(b.key);
      return c !== 0 ? sign * c : a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.classList.add("sort");
      th.addEventListener("click", function () { sortTable(table, col, th); });
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          sortTable(table, col, th);
        }
      });
    });
  });
})();
