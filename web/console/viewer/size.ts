// How the MCP Apps host sizes a viewer's frame from its ui/notifications/size-changed reports. A
// viewer should report its content's own height, which the frame's height does not change; one that
// reports something that grows with its frame (its body's bottom in quirks mode, innerHeight plus a
// margin) makes every resize the host applies cause a bigger report, and the two chase each other up
// to the cap (issue #30). So the host does not trust a report that grows the frame just after the
// host's own resize: a few in a row are allowed (content that arrives in steps), then growth stops
// until the viewer has asked for none for a while. Shrinking is always allowed: it cannot run away.

export const frameHeights = { initial: 240, min: 80, max: 2000 };

/** A growth reported this soon after the host's own resize may have been caused by it. */
export const echoWindowMs = 1000;
/** Growths in a row, each within the echo window of the resize before it, before the host stops growing. */
export const maxChainedGrowths = 5;

/**
 * Returns the handler for a viewer's size reports: it calls `apply` with the frame's new height when
 * the frame should change, and ignores the rest.
 */
export function frameSizer(apply: (height: number) => void, now: () => number = () => performance.now()): (reported: unknown) => void {
  let applied = frameHeights.initial;
  let appliedAt = -Infinity;
  let chained = 0;
  let stopped = false;
  let lastAskedAt = -Infinity;
  return (reported) => {
    if (typeof reported !== 'number' || !Number.isFinite(reported)) return;
    const height = Math.min(Math.max(Math.ceil(reported), frameHeights.min), frameHeights.max);
    if (height === applied) return;
    const at = now();
    if (height > applied) {
      // Growth stopped for a loop resumes once the viewer has asked for none for an echo window.
      if (stopped && at - lastAskedAt >= echoWindowMs) [stopped, chained] = [false, 0];
      lastAskedAt = at;
      if (stopped) return;
      if (at - appliedAt >= echoWindowMs) chained = 0;
      else if (++chained > maxChainedGrowths) {
        stopped = true;
        return;
      }
    }
    applied = height;
    appliedAt = at;
    apply(height);
  };
}
