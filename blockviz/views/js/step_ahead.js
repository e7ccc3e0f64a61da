// Stepping at once (blockviz/views/ahead.py): a player (player.js) shows a neighbouring step before
// Python answers when every view it drives holds that step, sent ahead, and then tells Python the
// step. The player and its views are separate widgets, so they meet through an event on `window`
// addressed by the player's channel (Python gives the views it drives the same one).

export const STEP_EVENT = "bv-step";

// Asks the views driven on `channel` to show `step`: true, and done, when at least one view listens
// and every one can; otherwise nothing changes (the player then asks Python).
export function stepViews(target, channel, step) {
  const ask = (apply) => {
    const detail = { channel, step, apply, views: 0, ready: true };
    target.dispatchEvent(new CustomEvent(STEP_EVENT, { detail }));
    return detail.views > 0 && detail.ready;
  };
  return ask(false) && ask(true);
}

// A view's side: `show(step, apply)` says whether it can show `step` and, with `apply`, shows it.
// Returns what stops listening.
export function listenSteps(target, channel, show) {
  const listener = (event) => {
    const d = event.detail;
    if (!d.channel || d.channel !== channel()) return;
    d.views += 1;
    if (!show(d.step, d.apply)) d.ready = false;
  };
  target.addEventListener(STEP_EVENT, listener);
  return () => target.removeEventListener(STEP_EVENT, listener);
}

// The patches sent ahead ({step, base, version, ...patch} each), by base version then step.
export function aheadIndex(patches) {
  const index = new Map();
  for (const patch of patches) {
    if (!index.has(patch.base)) index.set(patch.base, new Map());
    index.get(patch.base).set(patch.step, patch);
  }
  return index;
}
