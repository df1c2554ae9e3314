// The window and policy of the scripted sessions that compact with their own model as the
// summarizer. The scripted model keeps its window, so the window must also hold the
// summarizer's request: the instruction and transcript (up to the threshold) plus the
// maxSummaryTokens it reserves for the answer (8,192 by default). The trigger stays where a
// 3,000-token window put it: threshold 2,400 tokens, retained tail 432.

export const SELF_SUMMARIZING_LIMITS = { contextWindow: 12_000, defaultMaxOutputTokens: 300 };

export const SELF_SUMMARIZING_POLICY = { headroomTokens: 0, thresholdRatio: 0.2, retainTokens: 432 };
