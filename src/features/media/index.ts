// The media feature's door: what the rest of the app uses of it.
export { FILE_GUARDS } from './files'
export { SIZE_LIMIT } from './formats'
export { UPLOADS_RULE, UploadsInFlight, type UploadDeps } from './in-flight'
export { Media, uploadRequestBody } from './model'
export { mediaRoutes } from './routes'
export { discardUpload, findMedia, isStoreFolder, libraryFileName, libraryPath, mediaByIds, mediaRoot, toMedia, uploadMedia, type MediaRow } from './service'
export { sweepMediaFolder } from './sweep'
export { linksAsMediaUser, renumber, type MediaDeps } from './users'
