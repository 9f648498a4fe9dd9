/** A count with its noun in the right number: `1 product`, `2 products`, `0 entries`. */
export function pluralize(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}
