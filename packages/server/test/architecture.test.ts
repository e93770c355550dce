import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layout rules of issue #49, read from the repository. Source = non-test .ts/.tsx under packages/*\/src.
 * Imports are read with TypeScript's own parser: type-only imports (`import type`, `export type`, and
 * specifiers all marked `type`) are left out, since they vanish at run time and cannot make a cycle.
 */
const ROOT = path.resolve(__dirname, '../../..');
const PACKAGES = path.join(ROOT, 'packages');

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(e.name) && !/\.(test|e2e|bench)\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}
const SOURCES = fs.readdirSync(PACKAGES).flatMap((pkg) => sourceFiles(path.join(PACKAGES, pkg, 'src')));
const rel = (file: string) => path.relative(ROOT, file);
const text = new Map(SOURCES.map((f) => [f, fs.readFileSync(f, 'utf8')]));
const lines = (file: string) => text.get(file)!.split('\n').length;

/** The runtime imports of a file, as written (`./x`, `@studio/schema`, `zod`). */
function runtimeImports(file: string): string[] {
  const sf = ts.createSourceFile(file, text.get(file)!, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings;
      if (clause && !clause.name && named && ts.isNamedImports(named) && named.elements.length && named.elements.every((e) => e.isTypeOnly)) continue;
      out.push((st.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && !st.isTypeOnly) {
      const named = st.exportClause;
      if (named && ts.isNamedExports(named) && named.elements.length && named.elements.every((e) => e.isTypeOnly)) continue;
      out.push((st.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

const CANDIDATES = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'];
/** The source file an import names, or null (a package outside the workspace, or a file outside src). */
function resolve(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith('.')) base = path.resolve(path.dirname(from), spec);
  else if (spec.startsWith('@studio/')) {
    const [, name, ...rest] = spec.split('/');
    base = path.join(PACKAGES, name!, 'src', rest.length ? rest.join('/') : 'index');
  } else return null;
  for (const c of CANDIDATES) if (text.has(base + c)) return base + c;
  return null;
}

const GRAPH = new Map(SOURCES.map((f) => [f, runtimeImports(f).map((s) => resolve(f, s)).filter((f): f is string => f !== null)]));

/** Strongly connected components of more than one file (or a file importing itself): the import cycles. */
function cycles(): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of GRAPH.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(rel(w));
      } while (w !== v);
      if (scc.length > 1 || (GRAPH.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const f of SOURCES) if (!idx.has(f)) visit(f);
  return found;
}

const ROUTES = path.join(PACKAGES, 'server/src/routes');
const SERVER = path.join(PACKAGES, 'server/src');
const CLIENT = path.join(PACKAGES, 'client/src');

/**
 * The client's own options (how it connects, what a call sends besides its contract, how an upload's file is sent,
 * what a record collection fixes for every call): not request or answer types.
 */
const CLIENT_OPTIONS = new Set(['ClientOptions', 'RequestOptions', 'CallOptions', 'QueryValues', 'AppErrorHandler', 'UploadSendOptions', 'CollectionOptions']);
/**
 * A client type is derived when it is built from a contract or a schema type, not spelled out field by field: it
 * reads a contract (Answer, BodyOf, QueryOf, CallArgs) or a schema (z.infer/input/output), or it names other types
 * (an alias, an indexed access, an intersection of names), each of which is checked where it is declared.
 */
const NAMED = String.raw`[A-Z]\w*(<[^>]*>)?(\[[^\]]*\])*`;
const DERIVED = new RegExp(String.raw`\b(Answer|BodyOf|QueryOf|CallArgs)<|z\.(infer|input|output)<|^\s*${NAMED}(\s*&\s*${NAMED})*\s*;?\s*$`);

/** Interfaces and object type aliases written by hand in the client: name and file. */
function handWrittenClientTypes(): string[] {
  const out: string[] = [];
  for (const file of SOURCES.filter((f) => f.startsWith(CLIENT + path.sep))) {
    const sf = ts.createSourceFile(file, text.get(file)!, ts.ScriptTarget.Latest, true);
    for (const st of sf.statements) {
      if (ts.isInterfaceDeclaration(st) && !CLIENT_OPTIONS.has(st.name.text)) out.push(`${rel(file)}: interface ${st.name.text}`);
      if (ts.isTypeAliasDeclaration(st) && !CLIENT_OPTIONS.has(st.name.text) && !DERIVED.test(st.type.getText(sf))) out.push(`${rel(file)}: type ${st.name.text}`);
    }
  }
  return out;
}

const routeFiles = SOURCES.filter((f) => f.startsWith(ROUTES + path.sep));

describe('the repository layout (#49)', () => {
  it('reads the source it checks', () => {
    expect(SOURCES.length).toBeGreaterThan(300);
    expect(routeFiles.length).toBeGreaterThan(20);
    // Imports resolve (relative ones and @studio/*), so the cycle check below walks the real graph.
    expect([...GRAPH.values()].reduce((n, to) => n + to.length, 0)).toBeGreaterThan(1000);
  });

  it('has no source file over 500 lines (a file does one thing: split past that)', () => {
    expect(SOURCES.filter((f) => lines(f) > 500).map((f) => `${rel(f)}: ${lines(f)} lines`)).toEqual([]);
  });

  it('has no hand-written request or answer type in the client: each is derived from @studio/schema', () => {
    // Every exported or local interface and object type in packages/client/src, but the client's own options, is built
    // from a call's contract or a schema type; a type spelled out field by field would drift from the server's.
    expect(handWrittenClientTypes()).toEqual([]);
  });

  it('has no runtime import cycle', () => {
    expect(cycles()).toEqual([]);
  });

  it('has no route file importing another route file (the route table aside)', () => {
    // routes/index.ts is the route table: importing every route file is its one job. What route files share
    // (answers, route families, the steps of a record's or a dataset's save) lives in http/.
    const table = path.join(ROUTES, 'index.ts');
    const found = routeFiles
      .filter((f) => f !== table)
      .flatMap((f) => GRAPH.get(f)!.filter((to) => to.startsWith(ROUTES + path.sep)).map((to) => `${rel(f)} imports ${rel(to)}`));
    expect(found).toEqual([]);
  });

  /** Lines of route files matching `pattern`, as file:line. */
  const routeLines = (pattern: RegExp) =>
    routeFiles.flatMap((f) =>
      text
        .get(f)!
        .split('\n')
        .flatMap((line, i) => (pattern.test(line) ? [`${rel(f)}:${i + 1}`] : [])),
    );

  it('declares no more routes inline than it did (each area moves to a contract in packages/schema/src/api)', () => {
    // A route declared inline (`defineRoute({ method, url, …, handler })`) has its zod objects in the route file and its
    // client call typed by hand; one built from a contract (`defineRoute(tagCalls.update, { handler })`) has neither.
    // The ceilings only go down: lower them as an area moves (#49: 34 files / 213 → 25 / 147 → 18 / 91 → 17 / 87).
    const inline = routeLines(/\bdefineRoute\(\{/);
    expect(inline.length).toBeLessThanOrEqual(87);
    expect(new Set(inline.map((at) => at.split(':')[0])).size).toBeLessThanOrEqual(17);
  });

  /**
   * Where route files take `name` out of the services by destructuring, as file:line: `const { db } = ctx.services`,
   * `const { db: catalog } = services`, or a handler's `({ services: { db } })`; the `services.db` text rule misses those.
   */
  const destructuredFromServices = (name: string) =>
    routeFiles.flatMap((f) => {
      const sf = ts.createSourceFile(f, text.get(f)!, ts.ScriptTarget.Latest, true);
      const found: string[] = [];
      const isServices = (e: ts.Node | undefined) =>
        e !== undefined && ((ts.isIdentifier(e) && e.text === 'services') || (ts.isPropertyAccessExpression(e) && e.name.text === 'services'));
      const keyOf = (el: ts.BindingElement) => (el.propertyName ?? el.name).getText(sf);
      const visit = (node: ts.Node) => {
        if (ts.isObjectBindingPattern(node)) {
          const parent = node.parent;
          const fromServices =
            (ts.isVariableDeclaration(parent) && isServices(parent.initializer)) || (ts.isBindingElement(parent) && keyOf(parent) === 'services');
          for (const el of node.elements) {
            if (fromServices && keyOf(el) === name) found.push(`${rel(f)}:${sf.getLineAndCharacterOfPosition(el.getStart(sf)).line + 1}`);
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
      return found;
    });

  it('has no route file reaching the catalog itself: routes call services', () => {
    expect(routeLines(/\bservices\.db\b/)).toEqual([]);
    expect(destructuredFromServices('db')).toEqual([]);
  });

  it('has no route file running the data engine itself: routes call services', () => {
    // The engine (DuckDB, the dataset store, its temp folder) is reached through the services that own the work:
    // datasets, executions, query results, readiness.
    expect(routeLines(/\bservices\.engine\b/)).toEqual([]);
    expect(destructuredFromServices('engine')).toEqual([]);
  });
});
