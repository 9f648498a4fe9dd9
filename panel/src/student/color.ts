/** Black or white text, whichever reads better on the store's colour (WCAG relative luminance). */
export function textOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
  return luminance > 0.35 ? '#111' : '#fff'
}

/** The store's primaryColor becomes the panel's accent. */
export function applyColor(hex: string) {
  document.documentElement.style.setProperty('--accent', hex)
  document.documentElement.style.setProperty('--accent-text', textOn(hex))
}

export function resetColor() {
  document.documentElement.style.removeProperty('--accent')
  document.documentElement.style.removeProperty('--accent-text')
}
