/** 204 with an empty body: the answer of every deletion. */
export const noContent = () => new Response(null, { status: 204 })
