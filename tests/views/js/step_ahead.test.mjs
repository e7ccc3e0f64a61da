// Stepping at once (blockviz/views/js/step_ahead.js): a player asks the views on its channel, and the
// patches sent ahead are found by base version and step.
import { test } from "node:test";
import assert from "node:assert/strict";

import { aheadIndex, listenSteps, stepViews } from "../../../blockviz/views/js/step_ahead.js";

const target = new EventTarget();

test("a step is shown when every view on the channel can show it, and only then", () => {
  const shown = [];
  const view = (channel, can) => listenSteps(target, () => channel, (step, apply) => {
    if (apply) shown.push([channel, step]);
    return can(step);
  });
  assert.equal(stepViews(target, "a", 1), false);  // no view listens: the player asks Python
  const stops = [view("a", () => true), view("a", (step) => step < 3), view("b", () => false)];
  assert.equal(stepViews(target, "a", 2), true);
  assert.deepEqual(shown, [["a", 2], ["a", 2]]);  // both views on a; b is another player's
  assert.equal(stepViews(target, "a", 3), false);  // one cannot: none moves
  assert.deepEqual(shown.length, 2);
  for (const stop of stops) stop();
  assert.equal(stepViews(target, "a", 2), false);
});

test("patches sent ahead are found by the version shown and the step wanted", () => {
  const patches = [{ step: 4, base: 7, version: 8, cells: [] }, { step: 5, base: 8, version: 9, cells: [] },
                   { step: 2, base: 7, version: 10, cells: [] }];
  const index = aheadIndex(patches);
  assert.equal(index.get(7).get(4), patches[0]);
  assert.equal(index.get(7).get(2), patches[2]);
  assert.equal(index.get(8).get(5), patches[1]);
  assert.equal(index.get(9), undefined);
});
