/**
 * The accepted formats, recognised by their bytes, never by the declared type or name.
 */
export const FORMATS = {
  'image/jpeg': { kind: 'IMAGE', name: 'JPEG', extension: 'jpg' },
  'image/png': { kind: 'IMAGE', name: 'PNG', extension: 'png' },
  'image/webp': { kind: 'IMAGE', name: 'WebP', extension: 'webp' },
  'image/gif': { kind: 'IMAGE', name: 'GIF', extension: 'gif' },
  'image/avif': { kind: 'IMAGE', name: 'AVIF', extension: 'avif' },
  'video/mp4': { kind: 'VIDEO', name: 'MP4', extension: 'mp4' },
  'video/webm': { kind: 'VIDEO', name: 'WebM', extension: 'webm' },
} as const

export type MediaKind = 'IMAGE' | 'VIDEO'
export type AcceptedMime = keyof typeof FORMATS

export const MiB = 1024 * 1024
export const SIZE_LIMIT: Record<MediaKind, number> = { IMAGE: 10 * MiB, VIDEO: 100 * MiB }
export const LARGEST_FILE = SIZE_LIMIT.VIDEO

export const ACCEPTED_LIST = 'JPEG, PNG, WebP, GIF or AVIF images (up to 10 MiB) and MP4 or WebM videos (up to 100 MiB)'

export const isAccepted = (mime: string | undefined): mime is AcceptedMime => mime !== undefined && mime in FORMATS

/**
 * Types the byte sniffer names apart that are one of the accepted formats: an animated PNG is a PNG
 * (every browser shows it as one), an M4V an MP4 (the same container, another brand).
 */
export const SAME_FORMAT: Record<string, AcceptedMime> = { 'image/apng': 'image/png', 'video/x-m4v': 'video/mp4' }

export const MIME_BY_EXTENSION: Record<string, AcceptedMime> = Object.fromEntries(
  Object.entries(FORMATS).map(([mime, f]) => [f.extension, mime as AcceptedMime]),
)
