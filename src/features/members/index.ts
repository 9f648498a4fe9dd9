// The members feature's door: what the rest of the app uses of it.
export { MAX_MEMBERS_PER_GROUP, Member, MemberInput, rmKey, RmParams } from './model'
export { memberRoutes } from './routes'
export { addMember, assertRmsFree, assertRoomFor, deleteMember, insertMembers, keptRm, listMembers, rmInAnyCase, moveMembers, studentsWithRms } from './service'
