/** Expression AST. Positions are 0-based character offsets into the source text, for error messages. */
export type Literal = string | number | boolean | null;

export type Expr =
  | { kind: 'column'; name: string; pos: number }
  | { kind: 'literal'; value: Literal; pos: number }
  | { kind: 'star'; pos: number }
  | { kind: 'unary'; op: '-' | 'NOT'; arg: Expr; pos: number }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; pos: number }
  | { kind: 'in'; arg: Expr; list: Expr[]; negated: boolean; pos: number }
  | { kind: 'between'; arg: Expr; low: Expr; high: Expr; negated: boolean; pos: number }
  | { kind: 'isNull'; arg: Expr; negated: boolean; pos: number }
  | { kind: 'like'; arg: Expr; pattern: Expr; negated: boolean; pos: number }
  | { kind: 'call'; name: string; args: Expr[]; pos: number };

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '=' | '!=' | '<' | '<=' | '>' | '>=' | 'AND' | 'OR' | '||';

/** A select / group item: an expression with an optional `AS alias`. */
export type Item = { expr: Expr; alias?: string; text: string };

/** A sort key: `col`, `asc(col)`, `desc(col)`. */
export type SortKey = { expr: Expr; desc: boolean };
