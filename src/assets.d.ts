// File imports (`with { type: 'file' }`) resolve to a path, on disk or inside the compiled executable.
declare module '@scalar/api-reference/browser/standalone.js' {
  const path: string
  export default path
}
