// The extractive summarizer: what it keeps (requests, paths, identifiers, errors, decisions,
// to-dos) in which section, that it never exceeds its budget or its input, and that it reads
// CJK and Vietnamese text by sentences and words, survives 50 MB tool results and never splits
// a character.

import { describe, expect, it } from 'vitest';
import { EXTRACTIVE_LABEL, type ExtractiveSummary, summarizeExtractively } from '../../src/compaction/extractive-summarizer.js';
import type { ToolCall } from '../../src/log/event.js';
import type { ModelMessage } from '../../src/providers/language-model.js';
import { sectionText } from './support/sections.js';

const chars4 = (text: string): number => Math.ceil(text.length / 4);
/** One token per code point: roughly how CJK text is priced, and a counter that is not additive-friendly to chars4. */
const perCharacter = (text: string): number => [...text].length;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function user(text: string): ModelMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}
function assistant(text: string, toolCalls: ToolCall[] = []): ModelMessage {
  return { role: 'assistant', content: [{ type: 'text', text }], toolCalls };
}
function tool(callId: string, text: string, isError = false): ModelMessage {
  return { role: 'tool', callId, content: [{ type: 'text', text }], isError };
}
function call(callId: string, name: string, args: ToolCall['arguments']): ToolCall {
  return { callId, name, arguments: args };
}

function summarize(messages: readonly ModelMessage[], maxTokens: number, countTokens = chars4): ExtractiveSummary {
  const summary = summarizeExtractively(messages, { maxTokens, countTokens });
  if (summary === undefined) expect.unreachable('expected a summary');
  return summary;
}

/**
 * A routine tool call with a long, uneventful output: it gives a small transcript the size of a
 * real compaction range, so the summary has room to be smaller than its input and still say something.
 */
function routineOutput(callId: string, line: (index: number) => string): ModelMessage[] {
  const output = Array.from({ length: 40 }, (_, index) => line(index)).join('\n');
  return [assistant('', [call(callId, 'list_packages', { depth: 1 })]), tool(callId, output)];
}

const LATEST_REQUEST = 'Great. Now make MAX_ROWS configurable through CsvOptions.maxRows, and keep the default at 10000 rows.';

const codingTranscript: ModelMessage[] = [
  user('The CSV import in src/csv.ts crashes on empty lines. Please fix parseRow() so that blank rows are skipped.'),
  assistant('I will read the file and the config first.', [
    call('c1', 'read_file', { path: 'src/csv.ts' }),
    call('c2', 'read_file', { path: './config/app.json' }),
  ]),
  tool('c1', 'export function parseRow(line: string): string[] {\n  return line.split(",");\n}\nexport const MAX_ROWS = 10_000;'),
  tool('c2', "ENOENT: no such file or directory, open './config/app.json'", true),
  assistant('There is no config file, so the defaults in src/defaults.ts apply. Running the tests to reproduce.', [
    call('c3', 'run_command', { command: 'npx vitest run test/csv.test.ts' }),
  ]),
  tool(
    'c3',
    [
      ' RUN  v4.1.0 /home/dev/project',
      ' FAIL  test/csv.test.ts > parses blank lines',
      "TypeError: Cannot read properties of undefined (reading 'split')",
      '    at parseRow (src/csv.ts:2:15)',
      '    at Object.<anonymous> (test/csv.test.ts:8:5)',
      ' Tests  1 failed | 11 passed (12)',
      'Process exited with exit code 1',
    ].join('\n'),
    true,
  ),
  assistant(
    'The crash happens because readLines() yields undefined for a trailing newline. I decided to guard in parseRow instead of changing read_lines_raw, because the JSON importer uses it too. Fix: return an empty array when the line is blank.',
    [
      call('c4', 'edit_file', {
        path: 'src/csv.ts',
        old_string: 'return line.split',
        new_string: 'if (!line?.trim()) return [];\n  return line.split',
      }),
    ],
  ),
  tool('c4', 'Edited src/csv.ts (1 hunk).'),
  ...routineOutput('c5', (index) => `package-${index} version 1.${index}.0 installed, licence MIT, funding available`),
  assistant(
    'Fixed: the tests now pass, 12 passed in 340 ms. Still TODO: cover Windows line endings from C:\\Users\\dev\\data\\rows.csv in a test.',
  ),
  user(LATEST_REQUEST),
];

describe('summarizeExtractively on a coding-agent transcript', () => {
  const summary = summarize(codingTranscript, 2_000);

  it('starts with the extractive label and stays smaller than its input', () => {
    expect(summary.text.split('\n')[0]).toBe(EXTRACTIVE_LABEL);
    expect(summary.outputTokens).toBe(chars4(summary.text));
    expect(summary.outputTokens).toBeLessThan(summary.inputTokens);
    expect(summary.locale).toBe('en');
  });

  it('keeps every user request verbatim, the answered one done and the latest open', () => {
    expect(summary.sections.requests).toEqual([
      {
        status: 'done',
        text: 'The CSV import in src/csv.ts crashes on empty lines. Please fix parseRow() so that blank rows are skipped.',
      },
      { status: 'open', text: LATEST_REQUEST },
    ]);
    expect(summary.text).toContain(`- [open] "${LATEST_REQUEST}"`);
  });

  it('keeps file paths and identifiers', () => {
    for (const path of ['src/csv.ts', './config/app.json', 'test/csv.test.ts', 'src/defaults.ts', 'C:\\Users\\dev\\data\\rows.csv']) {
      expect(summary.text).toContain(path);
    }
    for (const identifier of ['parseRow()', 'MAX_ROWS', 'readLines()', 'read_lines_raw', 'CsvOptions.maxRows'])
      expect(summary.text).toContain(identifier);
  });

  it('keeps error lines with their calls and fixes, file actions, decisions and to-dos, in their sections', () => {
    const errors = sectionText(summary.text, 'Errors and fixes');
    expect(errors).toContain("TypeError: Cannot read properties of undefined (reading 'split')");
    expect(errors).toContain('- read_file({"path":"./config/app.json"}) failed: ENOENT: no such file or directory');
    expect(errors).toContain('- run_command({"command":"npx vitest run test/csv.test.ts"}) failed: FAIL test/csv.test.ts');
    expect(errors).toContain('exit code 1 → fixed: Fixed: the tests now pass, 12 passed in 340 ms.');
    expect(sectionText(summary.text, 'Files')).toContain('- modified: src/csv.ts');
    expect(sectionText(summary.text, 'Decisions')).toContain('I decided to guard in parseRow');
    expect(sectionText(summary.text, 'Progress')).toContain('Still TODO: cover Windows line endings');
    expect(sectionText(summary.text, 'Tool calls')).toContain('- list_packages({"depth":1}) → ok');
    const titles = ['Requests', 'Files', 'Identifiers', 'Decisions', 'Errors and fixes', 'Progress', 'Tool calls'];
    const positions = titles.map((title) => summary.text.indexOf(`\n## ${title}\n`));
    expect(positions.every((position) => position > 0)).toBe(true);
    expect([...positions].sort((first, second) => first - second)).toEqual(positions);
  });

  it('drops stack frames and bodies of edits', () => {
    expect(summary.text).not.toContain('at Object.<anonymous>');
    expect(summary.text).not.toContain('old_string');
  });

  it('is deterministic', () => {
    const again = summarize(structuredClone(codingTranscript), 2_000);
    expect(again).toEqual(summary);
  });
});

describe('summarizeExtractively and its budget', () => {
  it('never exceeds the budget nor the input, and says so when nothing useful fits', () => {
    const inputTokens = summarize(codingTranscript, 10_000).inputTokens;
    for (let maxTokens = 1; maxTokens <= inputTokens + 50; maxTokens += 7) {
      const summary = summarizeExtractively(codingTranscript, { maxTokens, countTokens: chars4 });
      if (summary === undefined) {
        expect(maxTokens).toBeLessThan(chars4(EXTRACTIVE_LABEL) + 10);
        continue;
      }
      expect(summary.outputTokens).toBeLessThanOrEqual(maxTokens);
      expect(summary.outputTokens).toBeLessThan(inputTokens);
      expect(summary.text.startsWith(EXTRACTIVE_LABEL)).toBe(true);
    }
  });

  it('keeps as much of the latest request as fits when it is long, from its head and its tail', () => {
    const request = `${'Here is the full log of the failing build, please read it. '.repeat(60)}So: why does src/build.ts fail?`;
    const summary = summarize([...codingTranscript, user(request)], 300);
    expect(summary.outputTokens).toBeLessThanOrEqual(300);
    expect(summary.text).toContain('- [open] "Here is the full log');
    expect(summary.text).toContain('why does src/build.ts fail?');
    expect(summary.text).toContain(' … ');
  });

  it('returns undefined for empty, blank, image-only and tiny inputs', () => {
    const options = { maxTokens: 1_000, countTokens: chars4 };
    expect(summarizeExtractively([], options)).toBeUndefined();
    expect(summarizeExtractively([user('   '), assistant('')], options)).toBeUndefined();
    expect(
      summarizeExtractively([{ role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: '' }] }], options),
    ).toBeUndefined();
    expect(summarizeExtractively([user('Fix src/a.ts please.')], options)).toBeUndefined();
    expect(summarizeExtractively(codingTranscript, { maxTokens: 0, countTokens: chars4 })).toBeUndefined();
    expect(summarizeExtractively(codingTranscript, { maxTokens: Number.NaN, countTokens: chars4 })).toBeUndefined();
  });

  it('mentions omitted images', () => {
    const image = { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' } as const;
    const withImages: ModelMessage[] = [
      { role: 'user', content: [image, image, { type: 'text', text: 'What is wrong in these screenshots?' }] },
      ...codingTranscript,
    ];
    expect(sectionText(summarize(withImages, 2_000).text, 'Notes')).toBe('- 2 images omitted');
  });
});

const chineseTranscript: ModelMessage[] = [
  user('请帮我修复src/parser.ts里的parseDate函数。它在处理空字符串时会崩溃！能今天完成吗？'),
  ...routineOutput('z0', (index) => `依赖包${index}：版本号一点${index}，已安装，许可证为麻省理工学院许可证`),
  assistant('我先运行测试看看。', [call('z1', 'run_command', { command: 'npm test' })]),
  tool('z1', 'FAIL test/parser.test.ts\nRangeError: Invalid time value\n    at parseDate (src/parser.ts:14:9)', true),
  assistant(
    '错误的原因是空字符串被传给了new Date()。我决定在parseDate开头检查空值，因为调用方很多。修复后测试全部通过，共24个测试。还需要更新README.md里的说明。',
  ),
  user('好的，请顺便把DATE_FORMAT常量改成ISO格式，然后提交。'),
];

describe('summarizeExtractively in Chinese, Japanese, Korean and Vietnamese', () => {
  it('segments Chinese at 。！？ and keeps the paths inside the Chinese text', () => {
    const summary = summarize(chineseTranscript, 1_000, perCharacter);
    expect(summary.locale).toBe('zh');
    expect(summary.outputTokens).toBeLessThan(summary.inputTokens);
    expect(summary.text).toContain('- [open] "好的，请顺便把DATE_FORMAT常量改成ISO格式，然后提交。"');
    expect(sectionText(summary.text, 'Files')).toMatch(/- mentioned: .*src\/parser\.ts/);
    expect(summary.text).toContain('README.md');
    expect(summary.text).toContain('DATE_FORMAT');
    expect(sectionText(summary.text, 'Progress')).toContain('- 错误的原因是空字符串被传给了new Date()。');
    expect(sectionText(summary.text, 'Decisions')).toContain('- 我决定在parseDate开头检查空值，因为调用方很多。');
    expect(sectionText(summary.text, 'Progress')).toContain('- 还需要更新README.md里的说明。');
    expect(sectionText(summary.text, 'Errors and fixes')).toContain(
      'RangeError: Invalid time value → fixed: 修复后测试全部通过，共24个测试。',
    );
    const assistantLines = [...summary.sections.progress, ...summary.sections.decisions];
    for (const line of assistantLines) expect(line).toMatch(/[。！？]$/);
  });

  it('respects a per-character budget on CJK text', () => {
    const long = Array.from(
      { length: 40 },
      (_, index) => `第${index}步：修改了src/module${index}.ts中的handler${index}函数，测试通过。`,
    ).join('');
    const messages = [...chineseTranscript.slice(0, -1), assistant(long), chineseTranscript[chineseTranscript.length - 1] as ModelMessage];
    for (const maxTokens of [200, 400, 800, 1_600]) {
      const summary = summarize(messages, maxTokens, perCharacter);
      expect(summary.outputTokens).toBeLessThanOrEqual(maxTokens);
      expect(summary.text).toContain('DATE_FORMAT常量');
    }
  });

  it('reads Japanese', () => {
    const summary = summarize(
      [
        user('src/app.tsのloadConfig関数でエラーが出ます。直してください。'),
        ...routineOutput(
          'j0',
          (index) => `パッケージ${index}：バージョン一点${index}、インストール済み、ライセンスはマサチューセッツ工科大学`,
        ),
        assistant('設定ファイルが見つかりません。config/default.jsonを作成することにしました。まだテストを追加する必要があります。'),
        user('ありがとう。次にREADME.mdも更新してください。'),
      ],
      1_000,
      perCharacter,
    );
    expect(summary.locale).toBe('ja');
    expect(summary.text).toContain('- [open] "ありがとう。次にREADME.mdも更新してください。"');
    expect(sectionText(summary.text, 'Files')).toMatch(/- mentioned: .*src\/app\.ts.*config\/default\.json/);
    expect(sectionText(summary.text, 'Decisions')).toContain('- config/default.jsonを作成することにしました。');
    expect(summary.text).toContain('loadConfig');
  });

  it('reads Korean', () => {
    const summary = summarize(
      [
        user('src/server.ts 파일에서 오류가 발생합니다. 포트 설정을 확인해 주세요.'),
        ...routineOutput('k0', (index) => `패키지 ${index}: 버전 일 점 ${index}, 설치됨, 라이선스는 매사추세츠 공과대학교`),
        assistant(
          'EADDRINUSE 오류가 발생했습니다. 포트 3000 대신 환경 변수 PORT_NUMBER를 사용하기로 결정했습니다. 아직 테스트를 추가해야 합니다.',
        ),
        user('좋아요. 이제 변경 사항을 커밋해 주세요.'),
      ],
      1_000,
      perCharacter,
    );
    expect(summary.locale).toBe('ko');
    expect(summary.text).toContain('- [open] "좋아요. 이제 변경 사항을 커밋해 주세요."');
    expect(sectionText(summary.text, 'Errors and fixes')).toContain('- EADDRINUSE 오류가 발생했습니다. → not fixed');
    expect(summary.text).toContain('src/server.ts');
    expect(summary.text).toContain('PORT_NUMBER');
  });

  it('reads Vietnamese', () => {
    const summary = summarize(
      [
        user('Hàm parseInvoice trong src/invoice.ts bị lỗi khi số tiền âm. Hãy sửa giúp tôi.'),
        ...routineOutput('v0', (index) => `Gói ${index}: phiên bản một chấm ${index}, đã cài đặt, giấy phép của viện công nghệ`),
        assistant('Lỗi xảy ra vì giá trị âm không được kiểm tra. Tôi sẽ thêm kiểm tra vào validateAmount. Vẫn còn cần viết thêm kiểm thử.'),
        user('Cảm ơn. Bây giờ hãy cập nhật tài liệu trong docs/invoice.md.'),
      ],
      1_000,
      chars4,
    );
    expect(summary.locale).toBe('vi');
    expect(summary.text).toContain('- [open] "Cảm ơn. Bây giờ hãy cập nhật tài liệu trong docs/invoice.md."');
    expect(sectionText(summary.text, 'Errors and fixes')).toContain('- Lỗi xảy ra vì giá trị âm không được kiểm tra. → not fixed');
    expect(sectionText(summary.text, 'Files')).toMatch(/- mentioned: .*src\/invoice\.ts/);
  });

  it('reads a mixed English, Chinese, Japanese and Korean session, and accepts a locale or ignores a bad one', () => {
    const mixed = [...codingTranscript, ...chineseTranscript, user('日本語でも説明してください。한국어로도 부탁해요.')];
    const detected = summarize(mixed, 1_500, perCharacter);
    const named = summarizeExtractively(mixed, { maxTokens: 1_500, countTokens: perCharacter, locale: 'ja-JP' });
    const malformed = summarizeExtractively(mixed, { maxTokens: 1_500, countTokens: perCharacter, locale: 'not a locale!' });
    expect(named?.locale).toBe('ja-JP');
    expect(malformed?.locale).toBe(detected.locale);
    for (const summary of [detected, named]) {
      expect(summary?.text).toContain('日本語でも説明してください。한국어로도 부탁해요.');
      expect(summary?.text).toContain('src/csv.ts');
      expect(summary?.text).toContain('src/parser.ts');
    }
  });
});

describe('summarizeExtractively on hostile input', () => {
  it('finishes on a 50 MB tool result, reading its head and tail, within the budget', () => {
    const line = 'DEBUG worker heartbeat ok, queue depth nominal, nothing to report here\n';
    const huge = `${line.repeat(Math.ceil((50 * 1024 * 1024) / line.length))}Error: disk quota exceeded while writing dist/bundle.js\n`;
    const messages = [
      user('Build the project and tell me why it stops.'),
      assistant('Running the build.', [call('b1', 'run_command', { command: 'npm run build' })]),
      tool('b1', huge, true),
      user('So what failed?'),
    ];
    const summary = summarize(messages, 500);
    expect(summary.outputTokens).toBeLessThanOrEqual(500);
    expect(summary.inputTokens).toBeGreaterThan(10_000_000);
    expect(sectionText(summary.text, 'Notes')).toBe('- 1 very long message read only at head and tail');
    expect(sectionText(summary.text, 'Errors and fixes')).toContain(
      '- run_command({"command":"npm run build"}) failed: Error: disk quota exceeded while writing dist/bundle.js → not fixed',
    );
    expect(summary.text).toContain('- [open] "So what failed?"');
  });

  it('never splits a surrogate pair, at any budget, and repairs lone surrogates in its input', () => {
    const emoji = '🚀👩‍💻🎉🇯🇵😀';
    const messages = [
      user(`${emoji.repeat(30)} Please fix src/emoji.ts 🙏 and handle 𝒳𝒴𝒵 too. Broken \uD83D input. ${emoji.repeat(30)}`),
      assistant(`Decided: the emoji parser will use Intl.Segmenter 🎯. ${'😀 '.repeat(200)}Still TODO: flags 🇫🇷.`),
      user(`${'🙂'.repeat(400)} 最后：请检查 src/emoji.ts 👍`),
    ];
    for (let maxTokens = 30; maxTokens <= 700; maxTokens += 11) {
      for (const countTokens of [chars4, perCharacter]) {
        const summary = summarizeExtractively(messages, { maxTokens, countTokens });
        if (summary === undefined) continue;
        expect(summary.text).not.toMatch(LONE_SURROGATE);
        expect(summary.outputTokens).toBeLessThanOrEqual(maxTokens);
      }
    }
  });

  it('treats a message of one enormous line (no sentence ends) without trouble', () => {
    const minified = `{"data":"${'x'.repeat(5_000_000)}"}`;
    const summary = summarize(
      [
        user('Why is dist/app.min.js so large?'),
        assistant('Reading it.', [call('m1', 'read_file', { path: 'dist/app.min.js' })]),
        tool('m1', minified),
        user('And?'),
      ],
      300,
    );
    expect(summary.outputTokens).toBeLessThanOrEqual(300);
    expect(summary.text).toContain('dist/app.min.js');
  });
});

describe('summarizeExtractively on the shapes a range can take', () => {
  it('names a failed tool result by its first line when the text has no error words', () => {
    const messages = [
      ...codingTranscript.slice(0, -1),
      assistant('Pushing the branch.', [call('p1', 'run_command', { command: 'git push origin main' })]),
      tool('p1', 'Permission to push to main was rejected by the branch protection rule.\nContact an administrator.', true),
      user('Open a pull request instead.'),
    ];
    const summary = summarize(messages, 2_000);
    expect(sectionText(summary.text, 'Errors and fixes')).toContain(
      '- run_command({"command":"git push origin main"}) failed: Permission to push to main was rejected by the branch protection rule. → not fixed',
    );
  });

  it('does not take an earlier compacted summary for the latest request', () => {
    const earlier = user(
      'Earlier context was compacted.\n<compacted-summary>\nThe user wanted src/legacy.ts removed.\n</compacted-summary>',
    );
    const summary = summarize([...codingTranscript, earlier], 2_000);
    expect(summary.sections.requests.at(-1)).toEqual({ status: 'open', text: LATEST_REQUEST });
    expect(summary.sections.earlier).toEqual(['The user wanted src/legacy.ts removed.']);
    expect(summary.text).not.toContain('[user]');
  });

  it('reads only the start of an enormous tool argument', () => {
    const write = call('w1', 'write_file', { path: 'data/big.csv', content: 'a,b\n'.repeat(2_000_000), note: 'x'.repeat(3_000_000) });
    const summary = summarize(
      [...codingTranscript.slice(0, -1), assistant('Writing the fixture.', [write]), tool('w1', 'ok'), user('Thanks.')],
      800,
    );
    expect(summary.outputTokens).toBeLessThanOrEqual(800);
    expect(sectionText(summary.text, 'Files')).toContain('- created: data/big.csv');
    expect(summary.text).not.toMatch(/x{200}|(a,b\\n){100}/);
  });
});
