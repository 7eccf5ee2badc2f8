// The simulated rig's channels: what each one carries and how it moves. A pure function of time, so the
// simulator needs no state beyond its clock and a chart can be checked against it.

export type ChannelKind = "double" | "long" | "string" | "double_array";

export interface Channel {
  name: string;
  kind: ChannelKind;
  unit: string;
}

export const CHANNELS: readonly Channel[] = [
  { name: "engine.rpm", kind: "double", unit: "rpm" },
  { name: "engine.temp", kind: "double", unit: "°C" },
  { name: "oil.temp", kind: "double", unit: "°C" },
  { name: "speed", kind: "double", unit: "m/s" },
  { name: "altitude", kind: "double", unit: "m" },
  { name: "accel.x", kind: "double", unit: "g" },
  { name: "accel.y", kind: "double", unit: "g" },
  { name: "battery.voltage", kind: "double", unit: "V" },
  { name: "state", kind: "string", unit: "" },
  { name: "fault.code", kind: "long", unit: "" },
  { name: "wheel.speeds", kind: "double_array", unit: "m/s" },
];

export const STATES = ["idle", "taxi", "climb", "cruise", "descent"] as const;

/** Deterministic noise in [-1, 1): a hash of the sample index. */
function noise(i: number, salt: number): number {
  const x = Math.sin(i * 12.9898 + salt * 78.233) * 43758.5453;
  return (x - Math.floor(x)) * 2 - 1;
}

/** Every channel's value at time `ms` (sample index `i` feeds the noise). */
export function sample(ms: number, i: number) {
  const t = ms / 1000;
  const phase = Math.floor(t / 20) % STATES.length; // a new flight phase every 20 s
  const speed = 40 + 30 * Math.sin(t / 15) + noise(i, 4);
  return {
    "engine.rpm": 2400 + 600 * Math.sin(t / 3) + 40 * noise(i, 1),
    "engine.temp": 90 + 8 * Math.sin(t / 60) + noise(i, 2) * 0.5,
    "oil.temp": 80 + 6 * Math.sin(t / 45 + 1) + noise(i, 3) * 0.3,
    speed,
    altitude: 1000 + 400 * Math.sin(t / 40),
    "accel.x": 0.2 * Math.sin(t * 2) + 0.05 * noise(i, 5),
    "accel.y": 0.1 * Math.cos(t * 1.3) + 0.05 * noise(i, 6),
    "battery.voltage": 12.6 - 0.3 * ((t % 120) / 120) + 0.02 * noise(i, 7),
    state: STATES[phase]!,
    "fault.code": BigInt(noise(Math.floor(t), 8) > 0.9 ? 17 : 0),
    "wheel.speeds": [0, 1, 2, 3].map((w) => speed * (1 + 0.01 * w) + 0.2 * noise(i, 9 + w)),
  };
}
