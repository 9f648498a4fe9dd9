/** 204 with an empty body: the answer of every deletion (spec: "204 with empty body"). */
export const noContent = () => new Response(null, { status: 204 })
