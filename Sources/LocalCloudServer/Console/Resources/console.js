// The console's live parts: the request log (new lines every second) and the telemetry charts
// (redrawn every 10 s). Text from the server is set with textContent only: it is never markup.
"use strict";

function startLiveLog(table) {
  const body = document.getElementById("log-lines");
  const status = document.getElementById("live-status");
  let last = Number(table.dataset.last || "0");
  const params = new URLSearchParams(window.location.search);
  const filter = new URLSearchParams();
  for (const key of ["status", "path", "user"]) {
    if (table.dataset[key]) filter.set(key, table.dataset[key]);
  }
  for (const key of ["c", "env"]) {
    if (params.get(key)) filter.set(key, params.get(key));
  }
  async function poll() {
    try {
      filter.set("after", String(last));
      const response = await fetch("/console/logs.json?" + filter.toString(), { credentials: "same-origin" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      const data = await response.json();
      for (const line of data.lines) {
        const row = document.createElement("tr");
        for (const key of ["time", "method", "path", "status", "code", "ms", "user", "node"]) {
          const cell = document.createElement("td");
          cell.textContent = line[key];
          if (key === "path" || key === "node") cell.className = key;
          row.appendChild(cell);
        }
        body.insertBefore(row, body.firstChild);
      }
      while (body.rows.length > 500) body.deleteRow(body.rows.length - 1);
      last = Number(data.last);
      status.textContent = "Live";
    } catch (error) {
      status.textContent = "Reconnecting… (" + error.message + ")";
    }
    window.setTimeout(poll, 1000);
  }
  poll();
}

function refreshCharts(images) {
  window.setInterval(() => {
    for (const image of images) {
      const url = new URL(image.src, window.location.href);
      url.searchParams.set("t", String(Date.now()));
      image.src = url.toString();
    }
  }, 10000);
}

document.addEventListener("DOMContentLoaded", () => {
  const log = document.getElementById("log");
  if (log) startLiveLog(log);
  const charts = document.querySelectorAll("img.chart");
  if (charts.length) refreshCharts(charts);
});
