CREATE TABLE `stock_changes` (
	`store_id` text NOT NULL,
	`slot` integer NOT NULL,
	`version` integer NOT NULL,
	`product_id` text NOT NULL,
	PRIMARY KEY(`store_id`, `slot`),
	FOREIGN KEY (`store_id`) REFERENCES `stores`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP TABLE `product_stock_versions`;--> statement-breakpoint
DROP INDEX `variants_store_low`;--> statement-breakpoint
CREATE INDEX `variants_store_low` ON `variants` (`store_id`,("stock" - "reserved" - "min_stock")) WHERE "variants"."deleted_at" is null and ("variants"."stock" - "variants"."reserved" - "variants"."min_stock") <= 0;--> statement-breakpoint
-- Hand-written below. A stock move wrote its store's `stock` version as its product's own in
-- `product_stock_versions` (0012): a row and an index entry on pages spread over the whole catalog,
-- two more pages for every order to write back to the database file. It now writes the change into
-- slot `version % 4096` of the store's ring in `stock_changes` (STOCK_CHANGES_KEPT in
-- src/features/catalog/tables.ts): consecutive changes, consecutive slots, the same few pages. The
-- cached bodies a read drops are those of the products in the slots since the version it last saw
-- (src/features/catalog/read-cache.ts). The rows of the dropped table were bookkeeping of that
-- in-memory cache, which starts empty at every start: nothing is lost.
DROP TRIGGER `variants_stock_version_update`;
--> statement-breakpoint
CREATE TRIGGER `variants_stock_version_update` AFTER UPDATE OF stock, reserved, updated_at ON `variants` BEGIN
  INSERT INTO catalog_versions(store_id, version, stock) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET stock = stock + 1;
  INSERT INTO stock_changes(store_id, slot, version, product_id) SELECT new.store_id, stock % 4096, stock, new.product_id FROM catalog_versions WHERE store_id = new.store_id
    ON CONFLICT(store_id, slot) DO UPDATE SET version = excluded.version, product_id = excluded.product_id;
END;
