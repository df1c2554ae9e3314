// Recognises what a summary must not lose: error lines, fixes, decisions, to-dos and
// quantities. Latin words are matched whole; CJK words are matched anywhere, because those
// scripts put no spaces around words. Alternatives are written '|'-separated, as in a regex.

/** Latin-script words matched whole (with the given flags), and CJK words matched anywhere. */
function lexicon(words: string, anywhere: string, flags = 'iu'): RegExp {
  const alternatives = [`(?<![\\p{L}\\p{N}_])(?:${words})(?![\\p{L}\\p{N}_])`];
  if (anywhere !== '') alternatives.push(`(?:${anywhere})`);
  return new RegExp(alternatives.join('|'), flags);
}

/** Exception names and errno codes are case-sensitive: "TypeError" is an error, "typeerror" is not. */
const ERROR_NAMES = lexicon(
  '[A-Z]\\w*(?:Error|Exception)|Error|Exception|Traceback|FATAL|FAIL|ERR!|ERR_[A-Z_]+|' +
    'E(?:NOENT|ACCES|PERM|EXIST|ISDIR|NOTDIR|NOTEMPTY|CONNREFUSED|CONNRESET|ADDRINUSE|TIMEDOUT|PIPE|MFILE|NOSPC|NOTFOUND)',
  '✗|✘|❌|错误|錯誤|异常|異常|例外|エラー|오류|에러|예외',
  'u',
);
const ERROR_PHRASES = lexicon(
  'exit(?:ed)?\\s+(?:with\\s+)?(?:code|status)\\s*[1-9]\\d*|error(?:\\[\\w+\\])?:|error\\s+TS\\d+|panic(?:ked)?|segmentation fault|fatal|lỗi|ngoại lệ',
  '',
);
const WEAK_ERROR = lexicon(
  "fail(?:s|ed|ing|ures?)?|errors?|cannot|can't|could not|couldn't|unable to|not found|no such file|denied|refused|timed out|" +
    'crash(?:ed|es)?|broken|is not (?:a function|defined)|undefined is not|không thể|không tìm thấy|thất bại',
  '失败|失敗|실패|无法|無法|できません|できない|找不到|見つかりません|찾을 수 없',
);
const RESOLUTION = lexicon(
  'fixed|fixes|resolved|resolves|solved|works now|now works|now pass(?:es)?|pass(?:es)? now|(?:all )?tests? pass(?:ed|es)?|succeeded|' +
    'đã sửa|đã khắc phục|đã giải quyết|thành công',
  '已修复|修复了|修复后|修好|已修正|修正了|已解决|解决了|测试通过|全部通过|已通过|通过了|成功|解決しました|修正しました|直しました|通りました|수정했|해결했|해결되|통과',
);
/** A choice made, with or without its reason. */
const DECISION = lexicon(
  'decided|decide|decision|plan(?:ned)? to|chose|choose|opted|instead of|rather than|because|therefore|fix:|quyết định|bởi vì|vì',
  '决定|決定|決め|选择|選択|改为|改用|因为|因為|所以|打算|采用|採用|方針|ことにし|ので、|ため、|결정|하기로|때문에|선택',
);
/** An intention ("I will …"): shown with the decisions, but common enough to rank below them. */
const INTENT = lexicon("will|won't|we'll|i'll|let's|going to|sẽ", 'します。|겠습니다|要做|将会');
const TODO = lexicon(
  'todo|fixme|next|still|remaining|remains|not yet|pending|need to|needs to|follow-up|vẫn|tiếp theo|còn lại|chưa|cần',
  '待办|待辦|还需|還需|还要|仍然|仍需|下一步|接下来|接下來|剩下|剩余|未完成|尚未|まだ|次に|残り|今後|아직|다음|남은|남아',
);
const QUANTITY = new RegExp(
  String.raw`(?<![\p{L}\p{N}_.])\d+(?:[.,]\d+)*\s?(?:%|` +
    '(?:ms|s|secs?|seconds?|mins?|minutes?|h|hours?|days?|bytes?|B|KB|MB|GB|TB|KiB|MiB|GiB|k|K|M|tokens?|lines?|files?|tests?|' +
    String.raw`errors?|warnings?|rows?|items?|px|x|°C|MHz|GHz|dòng|giây|phút|tệp)(?![\p{L}\p{N}_])|` +
    '个|個|行|秒|分钟|分鐘|毫秒|小时|小時|字节|件|개|줄|초|분|시간)',
  'u',
);

export type ErrorStrength = 'strong' | 'weak' | 'none';
export type DecisionStrength = 'firm' | 'intent' | 'none';

export interface SentenceFeatures {
  readonly error: ErrorStrength;
  readonly resolution: boolean;
  readonly decision: DecisionStrength;
  readonly todo: boolean;
  readonly quantity: boolean;
}

function errorStrength(text: string): ErrorStrength {
  if (ERROR_NAMES.test(text) || ERROR_PHRASES.test(text)) return 'strong';
  return WEAK_ERROR.test(text) ? 'weak' : 'none';
}

function decisionStrength(text: string): DecisionStrength {
  if (DECISION.test(text)) return 'firm';
  return INTENT.test(text) ? 'intent' : 'none';
}

/** What kind of sentence this is; the text should be short (the caller cuts long lines). */
export function featuresOf(text: string): SentenceFeatures {
  return {
    error: errorStrength(text),
    resolution: RESOLUTION.test(text),
    decision: decisionStrength(text),
    todo: TODO.test(text),
    quantity: QUANTITY.test(text),
  };
}
