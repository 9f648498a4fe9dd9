/**
 * 201 Created, with `Location` set to where the new resource is read (`/v1/products/prod_...`) when it
 * has a GET of its own: a 201 without it says, by HTTP's rules, that the resource created is the one
 * the request was sent to. The path is relative to the server, as the API's paths are written.
 */
export function created<T extends { id: string }>(set: { status?: number | string; headers: Record<string, string | number> }, value: T, at: (id: string) => string): T {
  set.status = 201
  set.headers.location = at(value.id)
  return value
}
