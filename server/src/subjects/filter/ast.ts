/**
 * The abstract syntax tree of the SCIM filter subset used by SEARCH (`filter=`), SPEC section 3.
 *
 * Grammar (RFC 7644 section 3.4.2.2, restricted): comparisons `eq ne co sw ew` and presence `pr` on
 * simple attribute names, combined with `and`, `or`, `not ( … )` and parentheses. `and`/`or` nodes are
 * binary and left-associative (`a and b and c` is `(a and b) and c`).
 *
 * Values are kept exactly as written (after JSON unescaping); evaluation and SQL translation compare
 * `normalizeValue()` of both sides, so the tree stays a faithful picture of the request.
 */

/** The special attribute that designates the subject's own id rather than one of its attributes. */
export const UNIQUE_ID_ATTR = 'uniqueId';

export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew';

export interface CompareNode {
  op: CompareOp;
  attr: string;
  value: string;
}

export interface PresentNode {
  op: 'pr';
  attr: string;
}

export interface LogicalNode {
  op: 'and' | 'or';
  left: FilterNode;
  right: FilterNode;
}

export interface NotNode {
  op: 'not';
  expr: FilterNode;
}

export type FilterNode = CompareNode | PresentNode | LogicalNode | NotNode;

export const COMPARE_OPS: readonly CompareOp[] = ['eq', 'ne', 'co', 'sw', 'ew'];

/**
 * The matching form of a value (SCIM caseExact=false): Unicode NFC, then `String.prototype.toLowerCase()`
 * (locale-independent full Unicode lowercase mapping, not case folding: `ß` stays `ß`, `ẞ` becomes `ß`).
 * Stores must fill `subjects.id_lc` and `subject_values.value_lc` with exactly this function so that the
 * in-memory evaluation and the SQL translation agree.
 */
export function normalizeValue(value: string): string {
  return value.normalize('NFC').toLowerCase();
}

/** The distinct attribute names a filter refers to (including `uniqueId`), in order of first use. */
export function filterAttributes(node: FilterNode): string[] {
  const seen = new Set<string>();
  const stack: FilterNode[] = [node];
  const order: string[] = [];
  // Depth-first, left to right, without recursion (trees are small, but this keeps it obviously bounded).
  while (stack.length > 0) {
    const n = stack.pop() as FilterNode;
    switch (n.op) {
      case 'and':
      case 'or':
        stack.push(n.right, n.left);
        break;
      case 'not':
        stack.push(n.expr);
        break;
      default:
        if (!seen.has(n.attr)) {
          seen.add(n.attr);
          order.push(n.attr);
        }
    }
  }
  return order;
}

/** Renders a tree back to canonical filter text (lowercase operators, full parentheses around and/or). */
export function formatFilter(node: FilterNode): string {
  switch (node.op) {
    case 'and':
    case 'or':
      return `(${formatFilter(node.left)} ${node.op} ${formatFilter(node.right)})`;
    case 'not':
      return `not (${formatFilter(node.expr)})`;
    case 'pr':
      return `${node.attr} pr`;
    default:
      return `${node.attr} ${node.op} ${JSON.stringify(node.value)}`;
  }
}
