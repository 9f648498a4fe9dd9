import { PNG } from 'pngjs'

/**
 * A product picture made on the spot, so the executable carries no image files: a diagonal band of
 * the product's colour on a light ground, 240×180. The same colour gives the same bytes.
 */
export function demoPicture([r, g, b]: [number, number, number]): Buffer {
  const png = new PNG({ width: 240, height: 180 })
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4
      const band = Math.abs(x - y * 1.33 - 30) < 70
      const light = 0.88
      png.data[i] = band ? r : Math.round(255 * light + r * (1 - light))
      png.data[i + 1] = band ? g : Math.round(255 * light + g * (1 - light))
      png.data[i + 2] = band ? b : Math.round(255 * light + b * (1 - light))
      png.data[i + 3] = 255
    }
  }
  return PNG.sync.write(png)
}
