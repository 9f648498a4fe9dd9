import { describe, expect, test } from 'bun:test'
import { asStudent, customerOf, type StoreCtx } from '../../src/kernel/auth/kinds'
import { AppError } from '../../src/kernel/errors'

const keyCtx: StoreCtx = { storeId: 'str_1', groupId: 'grp_1', actor: { type: 'secretKey', keyId: 'key_1', rm: null } }

describe('narrowing a store context', () => {
  test('a route declared for students or buyers, reached with another credential, fails as the server fault it is: the app error type, 500, a message that says what to do', () => {
    for (const [narrow, needed] of [[asStudent, 'a student token'], [customerOf, "a customer's token"]] as const) {
      let thrown: unknown
      try {
        narrow(keyCtx)
      } catch (e) {
        thrown = e
      }
      expect(thrown).toBeInstanceOf(AppError)
      expect([(thrown as AppError).code, (thrown as AppError).status]).toEqual(['INTERNAL_ERROR', 500])
      expect((thrown as AppError).message).toContain(needed)
      expect((thrown as AppError).message).toContain('Tell the teacher')
    }
  })

  test('the declared credential passes through', () => {
    const student: StoreCtx = { storeId: 'str_1', groupId: 'grp_1', actor: { type: 'student', rm: '111', mustChangePassword: false } }
    expect(asStudent(student).actor.rm).toBe('111')
    const buyer: StoreCtx = { storeId: 'str_1', groupId: 'grp_1', actor: { type: 'customer', customerId: 'cus_1', keyId: 'key_1', keyKind: 'publishable', rm: null } }
    expect(customerOf(buyer)).toBe('cus_1')
  })
})
