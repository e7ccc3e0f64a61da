// The fleet view's page module (blockviz/views/js/fleet.js) in a DOM (jsdom): it places what Python
// rendered and follows each new rendering and step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Model } from "./fake_page.mjs";

const { default: widget } = await import("../../../blockviz/views/js/fleet.js");

test("it shows the waiting line, then the instances and the router's pick", () => {
  const model = new Model({ html: '<div class="bv-fleet"><p class="bv-fleet-waiting">waiting</p></div>', step: -1 });
  const el = document.createElement("div");
  widget.render({ model, el });
  assert.match(el.querySelector(".bv-fleet-waiting").textContent, /waiting/);
  model.change("html", '<div class="bv-fleet" data-chosen="B"><section data-instance="A"></section>' +
                    '<section data-instance="B" data-chosen></section></div>');
  model.change("step", 4);
  assert.equal(el.querySelectorAll("section").length, 2);
  assert.equal(el.querySelector("section[data-chosen]").dataset.instance, "B");
  assert.equal(el.querySelector(".bv-fleet-view").dataset.step, "4");
});
