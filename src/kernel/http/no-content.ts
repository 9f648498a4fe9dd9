/** 204 with an empty body: what a deletion answers (removing a cart line answers the cart instead). */
export const noContent = () => new Response(null, { status: 204 })
