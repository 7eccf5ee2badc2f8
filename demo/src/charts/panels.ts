// Which series each panel draws. Several channels per panel share its y axis; array channels plot an
// element each, the string state plots its level.
import { STATES } from "../channels.js";
import type { SeriesSpec } from "./downsample.js";

export interface PanelSpec {
  title: string;
  series: SeriesSpec[];
}

const double = (channel: string): SeriesSpec => ({ key: channel, channel, column: "double" });

export const PANELS: readonly PanelSpec[] = [
  { title: "Engine speed (rpm)", series: [double("engine.rpm")] },
  { title: "Temperatures (°C)", series: [double("engine.temp"), double("oil.temp")] },
  { title: "Speed (m/s) and wheel speeds", series: [double("speed"), ...[0, 1, 2, 3].map(wheel)] },
  { title: "Altitude (m)", series: [double("altitude")] },
  { title: "Acceleration (g)", series: [double("accel.x"), double("accel.y")] },
  { title: "Battery (V)", series: [double("battery.voltage")] },
  {
    title: `State (${STATES.map((s, i) => `${i}=${s}`).join(" ")}) and fault code`,
    series: [
      { key: "state", channel: "state", column: "string", levels: STATES },
      { key: "fault.code", channel: "fault.code", column: "long" },
    ],
  },
];

function wheel(element: number): SeriesSpec {
  return { key: `wheel.speeds[${element}]`, channel: "wheel.speeds", column: "double_array", element };
}
