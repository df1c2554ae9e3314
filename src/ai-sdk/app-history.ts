// The app's view of a session: its surface with shadowlog's own replacements (compactions,
// prunes, masks) undone, so that an app that keeps its whole history and resends it is matched
// against what it sent before, not against the compacted surface the model is shown. A client's
// rewrite (a replacement that lists only surface events) stays: it is the app's own history.
// Nodes shadowed by shadowlog are kept here as they were seen, keyed once.

import type { LogEvent } from '../log/event.js';
import { SURFACE_TYPES, type SurfaceType } from '../log/event.js';
import type { SessionSeq } from '../log/seq.js';
import type { SurfaceFold, SurfaceNode } from '../log/surface-fold.js';
import { keyOfNode } from '../proxy/node-keys.js';

const SURFACE = new Set<string>(SURFACE_TYPES);

export class AppHistory {
  private readonly nodes = new Map<number, SurfaceNode>();
  private readonly keys = new Map<number, string>();
  private readonly firstOrigins = new Map<number, number>();

  observe(event: LogEvent): void {
    if (!SURFACE.has(event.type)) return;
    this.nodes.set(event.seq, {
      seq: event.seq,
      type: event.type as SurfaceType,
      sourceEventSeqs: (event.sourceEventSeqs ?? []) as readonly SessionSeq[],
      event,
    });
  }

  /** Sets the key of a node the recorder wrote (the key of the message it came from). */
  keyed(seq: number, key: string): void {
    this.keys.set(seq, key);
  }

  keyOf(seq: number): string {
    let key = this.keys.get(seq);
    if (key === undefined) {
      const node = this.nodes.get(seq);
      key = node === undefined ? '' : keyOfNode(node);
      this.keys.set(seq, key);
    }
    return key;
  }

  /** The app's history: the surface, each node shadowlog put there expanded into the nodes it shadowed. */
  view(fold: SurfaceFold): SurfaceNode[] {
    const out: SurfaceNode[] = [];
    const expand = (node: SurfaceNode): void => {
      const shadowed = this.shadowedBy(node, fold);
      if (shadowed === undefined) {
        out.push(node);
        return;
      }
      for (const inner of shadowed) expand(inner);
    };
    for (const node of fold.nodes()) expand(node);
    return out;
  }

  /** True when shadowlog's compaction or pruner put `node` on the surface. */
  isShadowlogReplacement(node: SurfaceNode, fold: SurfaceFold): boolean {
    return node.sourceEventSeqs.some((seq) => !fold.isSurfaceEvent(seq));
  }

  /** The nodes a replacement of shadowlog's stands for, in their surface order; undefined for any other node. */
  private shadowedBy(node: SurfaceNode, fold: SurfaceFold): SurfaceNode[] | undefined {
    if (!this.isShadowlogReplacement(node, fold)) return undefined;
    const inner = node.sourceEventSeqs.flatMap((seq) => {
      const source = this.nodes.get(seq);
      return source === undefined ? [] : [source];
    });
    // A replacement stands where its first shadowed node stood, and ranges are contiguous: the
    // earliest original behind each node gives the order.
    return inner.sort((a, b) => this.firstOrigin(a) - this.firstOrigin(b));
  }

  private firstOrigin(node: SurfaceNode): number {
    let first = this.firstOrigins.get(node.seq);
    if (first === undefined) {
      first = node.seq;
      for (const seq of node.sourceEventSeqs) {
        const source = this.nodes.get(seq);
        if (source !== undefined) first = Math.min(first, this.firstOrigin(source));
      }
      this.firstOrigins.set(node.seq, first);
    }
    return first;
  }
}
