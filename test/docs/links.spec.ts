import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Every relative link in the repository's Markdown (README.md, README.zh-CN.md, docs/, web/) points
 * at a file that exists, and a link to a heading (`file.md#heading`, `#heading`) at a heading that
 * exists: a renamed file or section breaks this test, not a reader's click.
 */
const ROOT = resolve(__dirname, '../..');
const SKIP = new Set(['node_modules', '.git', 'dist', 'data', 'coverage', 'test-results', '.lps-build', 'profiles']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Targets of inline links and images: [text](target) and ![alt](target "title"). */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, title] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = title
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

/** Why the link does not resolve, or null when it does. */
function problem(from: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto:, …: not checked here
  const [pathPart, anchor] = target.split('#', 2);
  const file = pathPart ? resolve(dirname(from), decodeURIComponent(pathPart)) : from;
  const name = relative(ROOT, file);
  if (!existsSync(file)) return `${name} does not exist`;
  if (anchor && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))) {
    return `${name} has no heading #${anchor}`;
  }
  return null;
}

describe('links in the Markdown files', () => {
  const files = markdownFiles(ROOT);

  it('finds the documents it checks (a walker that sees nothing would pass anything)', () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toEqual(
      expect.arrayContaining([
        'README.md',
        'README.zh-CN.md',
        'docs/architecture.md',
        'docs/operations.md',
        'docs/api.md',
        'docs/policies.md',
        'docs/security.md',
        'docs/benchmarks.md',
      ]),
    );
    expect(linkTargets(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
  });

  it('resolve: every relative link names a file that exists, and a heading of it that exists', () => {
    const broken = files.flatMap((file) =>
      linkTargets(readFileSync(file, 'utf8'))
        .map((target) => ({ target, why: problem(file, target) }))
        .filter(({ why }) => why !== null)
        .map(({ target, why }) => `${relative(ROOT, file)}: (${target}) ${why}`),
    );
    expect(broken).toEqual([]);
  });

  it('knows a broken link and a missing heading when it sees one', () => {
    const readme = join(ROOT, 'README.md');
    expect(problem(readme, 'docs/missing.md')).toBe('docs/missing.md does not exist');
    expect(problem(readme, 'docs/operations.md#no-such-heading')).toBe(
      'docs/operations.md has no heading #no-such-heading',
    );
    expect(problem(readme, 'docs/operations.md#behind-nginx')).toBeNull();
    expect(anchorsOf('# A tour of the console\n## 一条命令：启动\n## Faults\n## Faults\n')).toEqual(
      new Set(['a-tour-of-the-console', '一条命令启动', 'faults', 'faults-1']),
    );
  });
});
