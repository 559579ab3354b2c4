/**
 * No role name is written in code (SPEC 6, `adminRoles`): roles appear only in configuration — the
 * demo's configuration and seed (server/src/demo/), the configuration's documented default
 * (`DEFAULT_ADMIN_ROLES` in server/src/config/defaults.ts), portlet.json and the portal's pages.
 *
 * Every TypeScript file of the processes and libraries is parsed, and any string in a role position
 * is reported: an element of a `roles`/`adminRoles` list, the argument of `….roles.includes(…)` and
 * the like, one side of a comparison with a role, a role link, or a SCIM filter on `roles` in text.
 * (`admin` as a mutability, `user` as a credential parameter are other words, in other positions.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '../..');
const CODE = ['server/src', 'gateway/src', 'portlet-adapter/src', 'client/src', 'common/src', 'bin'];
/** Configuration written as TypeScript: the demo's, and the configuration's one default list. */
const CONFIGURATION = [/^server\/src\/demo\//, /^server\/src\/config\/defaults\.ts$/];

const ROLE_NAME = /^(roles?|adminRoles|roleLink)$/i;
const MENTIONS_ROLES = /role/i;
const MEMBERSHIP = new Set(['includes', 'has', 'indexOf', 'some', 'every', 'find', 'filter']);
const FILTER_ON_ROLES = /\broles\s+(eq|ne|co|sw|ew)\s+["\\]/i;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const isString = (node: ts.Node): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral => ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);

function nameOf(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isIdentifier(node) || ts.isStringLiteral(node) || ts.isPrivateIdentifier(node)) return node.text;
  return undefined;
}

/** Inside the callback of `….roles.some(…)` and the like. */
function withinMembershipOfRoles(node: ts.Node, source: ts.SourceFile): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isCallExpression(at) && ts.isPropertyAccessExpression(at.expression) && MEMBERSHIP.has(at.expression.name.text) && MENTIONS_ROLES.test(at.expression.expression.getText(source))) return true;
    if (ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at)) return false;
  }
  return false;
}

/** Whether a string literal stands where a role would: see the file's comment. */
function inRolePosition(literal: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral, source: ts.SourceFile): boolean {
  const parent = literal.parent;
  // roles: ['admin'], const adminRoles = ['admin'], roleLink: 'admin'
  const holder = ts.isArrayLiteralExpression(parent) ? parent.parent : parent;
  if ((ts.isPropertyAssignment(holder) || ts.isVariableDeclaration(holder)) && holder.initializer === (ts.isArrayLiteralExpression(parent) ? parent : literal)) {
    if (ROLE_NAME.test(nameOf(holder.name) ?? '')) return true;
  }
  // roles.includes('admin'), (await core.rolesOf(s)).includes('admin'), new Set(roles).has('admin')
  if (ts.isCallExpression(parent) && parent.arguments.includes(literal) && ts.isPropertyAccessExpression(parent.expression)) {
    if (MEMBERSHIP.has(parent.expression.name.text) && MENTIONS_ROLES.test(parent.expression.expression.getText(source))) return true;
  }
  // role === 'admin', and roles.some((r) => r === 'admin')
  if (ts.isBinaryExpression(parent) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(parent.operatorToken.kind)) {
    const other = parent.left === literal ? parent.right : parent.left;
    if (ts.isTypeOfExpression(other)) return false;
    if (MENTIONS_ROLES.test(other.getText(source)) || withinMembershipOfRoles(parent, source)) return true;
  }
  // 'mail ew "@example.com" and not (roles eq "admin")'
  return FILTER_ON_ROLES.test(literal.text);
}

/** `file:line: text` of every role written in the source. */
function rolesWritten(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isString(node) && inRolePosition(node, source)) {
      found.push(`${path}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source)}`);
    }
    if (ts.isTemplateExpression(node) && FILTER_ON_ROLES.test([node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' '))) {
      found.push(`${path}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no role name is written in the code of the server, gateway, portal, portlets, client or bin', () => {
  const checked = CODE.flatMap((dir) => files(join(ROOT, dir)))
    .map((path) => relative(ROOT, path))
    .filter((path) => !CONFIGURATION.some((pattern) => pattern.test(path)));
  expect(checked.length).toBeGreaterThan(200);
  expect(checked.flatMap((path) => rolesWritten(path, readFileSync(join(ROOT, path), 'utf8')))).toEqual([]);
});

test('what the scan reports: the roles the code used to write (as of 119b3c4), and not the other words', () => {
  const written = [
    `return session.type === 'SYSTEM' || (await rolesFor(core, session)).includes('admin');`,
    `if (session.principal.contextId === contextId && (await core.rolesOf(session)).includes('admin')) return 'admin';`,
    `const p = { id: 'admin-manages-own-context', effect: 'allow', sessionTypes: ['USER'], roles: ['admin'], operations: [] };`,
    `const hint = 'For example: mail ew "@example.com" and not (roles eq "admin")';`,
    `const ok = identity.session.roles.some((r) => r === 'admin');`,
    'const filter = `mail ew "${domain}" and not (roles eq "admin")`;',
    `const adminRoles = ['superuser'];`,
    `const ref = { roleName: 'administrator', roleLink: 'admin' };`,
  ];
  for (const line of written) expect(rolesWritten('x.ts', line)).toHaveLength(1);
  const otherWords = [
    `export type Mutability = 'readWrite' | 'admin' | 'immutable' | 'writeOnly';`,
    `if (d.mutability === 'admin') editable.push(name);`,
    `const user = request.credentials.get('user');`,
    `if (identity.kind === 'user') end();`,
    `return writer === 'admin' || (creating && writer === 'registrant');`,
    `const roles = page.roles.filter((role) => identity.session.roles.includes(role));`,
    `return list.filter((role): role is string => typeof role === 'string');`,
  ];
  for (const line of otherWords) expect(rolesWritten('x.ts', line)).toEqual([]);
});
