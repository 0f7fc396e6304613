// The tool registry's call timeouts, all on one timer: armed for the earliest deadline and
// left armed when a call ends (a timer set and cleared per call cost each step of a run about
// 10 µs); when it fires it times out the calls that are due and is armed again for the next.
// A call's deadline counts from its start (`startedAt`); one still waiting for its commit is not
// due. In Node the timer keeps no process alive while no call runs.

const timedCalls = new Set();
let callTimer = null;
let callTimerAt = Infinity;

function deadlineOf(call) {
  return (call.startedAt ?? performance.now()) + call.timeoutMs;
}

function armCallTimer(at) {
  if (callTimer !== null) {
    if (callTimerAt <= at) return;
    clearTimeout(callTimer);
  }
  callTimerAt = at;
  callTimer = setTimeout(fireCallTimer, Math.max(0, at - performance.now()));
}

function fireCallTimer() {
  callTimer = null;
  callTimerAt = Infinity;
  // A timer may fire a hair before the clock reads its deadline.
  const now = performance.now() + 1;
  let next = Infinity;
  for (const call of timedCalls) {
    const at = deadlineOf(call);
    if (at <= now) {
      timedCalls.delete(call);
      call.expire();
    } else if (at < next) {
      next = at;
    }
  }
  if (next !== Infinity) armCallTimer(next);
}

/** Times `call` ({startedAt, timeoutMs, expire()}): `expire` is called once it is due. */
export function timeCall(call) {
  timedCalls.add(call);
  armCallTimer(deadlineOf(call));
  callTimer?.ref?.();
}

/** Stops timing `call` (it ended). */
export function untimeCall(call) {
  timedCalls.delete(call);
  if (timedCalls.size === 0) callTimer?.unref?.();
}
