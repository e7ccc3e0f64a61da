// The demo's JupyterLab extension (blockviz/demo/labextension/remoteEntry.js) loaded as JupyterLab
// loads a prebuilt extension (a script that defines _JUPYTERLAB), its plugin activated on a stand-in
// application that records the commands it runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const source = readFileSync(new URL("../../../blockviz/demo/labextension/remoteEntry.js", import.meta.url), "utf8");

async function plugin() {
  const context = vm.createContext({ setTimeout, Promise, WeakSet });
  vm.runInContext(source, context);
  const container = context._JUPYTERLAB["blockviz-demo"];
  await container.init();
  const factory = await container.get("./extension");
  const [only, ...rest] = factory().default;
  assert.equal(rest.length, 0);
  return only;
}

function notebook(id, blockviz, { kernelAfter = 0 } = {}) {
  const session = { ready: Promise.resolve(), isReady: kernelAfter === 0 };
  if (kernelAfter) setTimeout(() => { session.isReady = true; }, kernelAfter);
  return { id, context: { ready: Promise.resolve() }, sessionContext: session,
           content: { model: { getMetadata: (key) => (key === "blockviz" ? blockviz : undefined) } } };
}

function app(current) {
  const ran = [], changed = [];
  const shell = { currentWidget: current, collapsed: 0, collapseLeft() { this.collapsed += 1; },
                  activateById(id) { ran.push(`activate ${id}`); },
                  currentChanged: { connect: (f) => changed.push(f) } };
  const commands = { execute: async (name) => { ran.push(`${name} on ${shell.currentWidget.id}`); } };
  const switchTo = (panel) => { shell.currentWidget = panel; changed.forEach((f) => f()); };
  return { app: { shell, commands, restored: Promise.resolve() }, ran, switchTo };
}

const settle = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

test("a notebook marked autorun runs all its cells once, with the file browser folded away", async () => {
  const { app: lab, ran, switchTo } = app(notebook("demo", { autorun: true }));
  const p = await plugin();
  assert.equal(p.autoStart, true);
  p.activate(lab);
  await settle();
  assert.deepEqual(ran, ["notebook:run-all-cells on demo"]);
  assert.equal(lab.shell.collapsed, 1);
  switchTo(lab.shell.currentWidget);  // focus comes back to it: not run again
  await settle();
  assert.deepEqual(ran, ["notebook:run-all-cells on demo"]);
});

test("a notebook without the mark, or with autorun false, is left alone", async () => {
  const { app: lab, ran, switchTo } = app(notebook("plain", undefined));
  (await plugin()).activate(lab);
  await settle();
  switchTo(notebook("off", { autorun: false }));
  await settle();
  switchTo(null);  // no widget at all: the last tab closed
  await settle();
  assert.deepEqual(ran, []);
});

test("it waits for the kernel before running, and runs the notebook that became current later", async () => {
  const { app: lab, ran, switchTo } = app(notebook("plain", undefined));
  (await plugin()).activate(lab);
  await settle();
  switchTo(notebook("demo", { autorun: true }, { kernelAfter: 250 }));
  await settle(100);
  assert.deepEqual(ran, []);  // the kernel is not ready yet
  await settle(400);
  assert.deepEqual(ran, ["notebook:run-all-cells on demo"]);
});
