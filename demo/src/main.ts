// The dashboard's entry: opens the browser storage, starts the simulator Worker, draws the charts, and wires
// each tab. Everything below reads and writes the same `browserStorage` by name, from the page and Workers.
import { AvroView } from "./avro/view.js";
import { Board } from "./charts/board.js";
import { openStorage, storageName, Telemetry } from "./namespace.js";
import { LiveView } from "./live/live-view.js";
import { RunsView } from "./workflows/runs-view.js";
import { SqlConsole } from "./sql/console.js";
import { startSimulator } from "./simulator.js";
import { registerOffline } from "./offline.js";
import { showNetwork, showStorage } from "./storage-info.js";
import { whenIdle } from "./idle.js";
import { tabs } from "./tabs.js";
import { TimeTravel } from "./time-travel.js";

const params = new URLSearchParams(location.search);
const name = storageName();
const storage = openStorage(name);
const ns = await Telemetry.open({ storage });
await ns.push();
performance.mark("demo:storage-open");

const board = new Board(document.getElementById("tab-charts")!, name);
const timeTravel = new TimeTravel(document.getElementById("time-travel")!, ns.points, (snap) => {
  const span = board.view.t1 - board.view.t0;
  if (!snap) board.follow();
  else board.show({ live: false, t0: snap.timestampMs - span, t1: snap.timestampMs, snapshotId: snap.id });
});
let historyDue = false;
ns.points.subscribe(() => {
  if (board.view.live) void board.refresh();
  // history is re-read at most once a second (the simulator commits once a second)
  if (!historyDue) {
    historyDue = true;
    setTimeout(
      () =>
        whenIdle(() => {
          historyDue = false;
          void timeTravel.reload();
        }),
      1_000,
    );
  }
});
// the first chart read starts before anything else is awaited: its Worker opens the storage meanwhile
// ?t1=<epoch ms>: a link to the 30 s ending then (not following the clock); otherwise the live tail
const linked = Number(params.get("t1"));
if (linked > 0) board.show({ live: false, t0: linked - 30_000, t1: linked });
else void board.refresh();
await timeTravel.reload();

const simulator = startSimulator(document.getElementById("sim")!, name, params.get("sim") !== "off");
showNetwork(document.getElementById("net")!);
void registerOffline(document.getElementById("offline-status")!);
void showStorage(document.getElementById("storage-info")!, storage);
const sql = new SqlConsole(document.getElementById("tab-sql")!, ns, () => timeTravel.snapshot);
const runs = new RunsView(document.getElementById("tab-workflows")!, ns);
const live = new LiveView(document.getElementById("tab-live")!, name);
tabs({ sql: () => void sql.run(), workflows: () => void runs.refresh(), live: () => void live.poll(true) });
const avro = new AvroView(document.getElementById("tab-data")!, ns, name, board);

const demo = { ns, storage, board, timeTravel, simulator, sql, avro, runs, live };
declare global {
  interface Window {
    demo: typeof demo;
  }
}
window.demo = demo;
document.getElementById("boot")!.remove();
