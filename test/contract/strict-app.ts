import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import ts from 'typescript'

// What the contract tests ask of a student's app written against a generated client: no type errors,
// and no way around the types.

export interface Diagnostic {
  file: string
  line: number
  message: string
}

/** The program's errors, each with its file's name and line. */
export function typeErrorsOf(program: ts.Program): Diagnostic[] {
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file ? basename(d.file.fileName) : '',
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    message: ts.flattenDiagnosticMessageText(d.messageText, ' '),
  }))
}

/** Every way around the types: `any`, casts, non-null assertions and `@ts-` comments. */
export function escapeHatches(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = /@ts-/.test(text) ? ['a @ts- comment'] : []
  const visit = (node: ts.Node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node) || node.kind === ts.SyntaxKind.AnyKeyword) {
      found.push(node.getText(source))
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}
