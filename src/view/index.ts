// shadowlog/view: the audit page of a session — each call's surface rebuilt and digest-checked,
// compactions expandable to their originals, the token-pressure chart — as one self-contained
// HTML file or served on loopback with a live follow; and the change of the surface from one
// call to another, as its panel shows it (`shadowlog diff` prints the same).

export {
  type DiffEvent,
  diffSurfaces,
  type ReplacementKind,
  type SurfaceDiff,
  type SurfaceReplacement,
  sourcesOf,
} from './client/surface-diff.js';
export { type PageSource, renderViewPage, scriptSafeJson, type ViewPage, viewPageParts } from './page-html.js';
export { CLIENT_MODULES, ViewAssetError } from './page-script.js';
export { ViewBuilder, type ViewBuilderOptions } from './view-builder.js';
export type { ViewContent } from './view-content.js';
export type {
  CallCheck,
  CallCost,
  CallMeterFigure,
  CallPricer,
  CallUsage,
  CallView,
  ChainView,
  CompactionView,
  EventStructure,
  PageDelta,
  PageDocument,
  PolicyView,
  PruneView,
  SummaryCheck,
  ViewDelta,
  ViewDocument,
  ViewMeter,
  ViewProblem,
} from './view-data.js';
export { type BuiltViewDocument, buildViewDocument, type ViewDocumentOptions } from './view-document.js';
export { isLoopbackHost, startViewServer, type ViewServer, type ViewServerOptions } from './view-server.js';
