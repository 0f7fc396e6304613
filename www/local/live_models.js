// How many local models are started and not unloaded in this page (the playground keeps one),
// whatever runs them.

let live = 0;

/** Counts a started model. */
export function modelStarted() {
  live += 1;
}

/** Counts a model unloaded. */
export function modelStopped() {
  live -= 1;
}

/** How many models are started and not unloaded in this page. */
export function liveLocalModels() {
  return live;
}
