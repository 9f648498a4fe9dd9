/** What the address needs of the server: Bun's and Elysia's servers both have it. */
export interface AddressSource {
  requestIP(request: Request): { address: string } | null
}

/**
 * The client's address as the server sees it: the peer of the connection. A forwarded-for header is
 * never believed, since any client can write one. 'local' when the app is called in-process
 * (`app.handle`, with no server).
 */
export const clientAddress = (server: AddressSource | null | undefined, request: Request) => server?.requestIP(request)?.address ?? 'local'
