import { z } from 'zod'

export const LoginBody = z
  .object({
    rm: z.string().trim().min(1, 'rm is required').max(32),
    password: z.string().min(1, 'password is required').max(256),
  })
  .strict()

const StudentView = z.object({ rm: z.string(), name: z.string(), group: z.string().describe('group name') })

export const LoginResponse = z.object({
  token: z.string().describe('Student token (stu_...): send it as Authorization: Bearer <token>. Lives 24 hours.'),
  student: StudentView,
  mustChangePassword: z.boolean(),
  expiresAt: z.string(),
})

export const MeResponse = z.object({
  student: StudentView,
  mustChangePassword: z.boolean(),
  store: z.object({ id: z.string(), storeName: z.string() }),
})

export const ChangePasswordBody = z
  .object({
    currentPassword: z.string().min(1, 'currentPassword is required').max(256),
    newPassword: z.string().min(8, 'newPassword needs at least 8 characters').max(256),
  })
  .strict()

export const ChangePasswordResponse = z.object({
  token: z.string().describe('A fresh student token; every other session of this student has ended.'),
  mustChangePassword: z.literal(false),
  expiresAt: z.string(),
})
