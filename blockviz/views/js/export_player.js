// The exported HTML player (views/export.py inlines this file): steps through the frames written into
// the page, by its buttons, its slider, the arrow keys and space. A classic script, inlined, so the
// page is one file that needs nothing beside it.
const frames = document.querySelectorAll('.bv-frame'), slider = document.getElementById('bv-slider');
const label = document.getElementById('bv-label'), play = document.getElementById('bv-play');
let current = 0, timer = null;
function show(i) {
  current = Math.max(0, Math.min(frames.length - 1, i));
  frames.forEach((f, k) => { f.hidden = k !== current; });
  slider.value = current; label.textContent = frames[current].dataset.title;
}
function toggle() {
  if (timer) { clearInterval(timer); timer = null; play.textContent = play.dataset.play; return; }
  play.textContent = play.dataset.pause;
  timer = setInterval(() => { if (current >= frames.length - 1) toggle(); else show(current + 1); }, 700);
}
document.getElementById('bv-back').onclick = () => show(current - 1);
document.getElementById('bv-forward').onclick = () => show(current + 1);
play.onclick = toggle;
slider.oninput = () => show(+slider.value);
document.addEventListener('keydown', e => {
  if (e.key === 'ArrowLeft') show(current - 1);
  else if (e.key === 'ArrowRight') show(current + 1);
  else if (e.key === ' ') { e.preventDefault(); toggle(); }
});
show(0);
