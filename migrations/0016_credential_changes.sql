CREATE TABLE `credential_changes` (
	`id` integer PRIMARY KEY NOT NULL,
	`n` integer NOT NULL
);
--> statement-breakpoint
-- Hand-written below: `n` moves on every change to what the gate keeps of a credential
-- (src/kernel/auth/kept-credentials.ts): an API key's row but its last use, a customer session, a
-- store's group. A deletion that cascades (a store, a customer, a group) fires the triggers of the rows
-- it takes. An upsert, so that the row is there again if it was ever removed.
INSERT INTO `credential_changes` (`id`, `n`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `api_keys_credential_changes_insert` AFTER INSERT ON `api_keys` BEGIN
  INSERT INTO credential_changes(id, n) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_credential_changes_update` AFTER UPDATE OF `id`, `store_id`, `kind`, `secret_hash`, `revoked_at` ON `api_keys` BEGIN
  INSERT INTO credential_changes(id, n) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_credential_changes_delete` AFTER DELETE ON `api_keys` BEGIN
  INSERT INTO credential_changes(id, n) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `customer_sessions_credential_changes_insert` AFTER INSERT ON `customer_sessions` BEGIN
  INSERT INTO credential_changes(id, n) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `customer_sessions_credential_changes_update` AFTER UPDATE ON `customer_sessions` BEGIN
  INSERT INTO credential_changes(id, n) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `customer_sessions_credential_changes_delete` AFTER DELETE ON `customer_sessions` BEGIN
  INSERT INTO credential_changes(id, n) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `stores_credential_changes_update` AFTER UPDATE OF `id`, `group_id` ON `stores` BEGIN
  INSERT INTO credential_changes(id, n) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1;
END;
