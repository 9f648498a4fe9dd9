ALTER TABLE `catalog_versions` ADD `matches` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Hand-written below: `matches` moves on every change that can alter which products a list shows or in
-- what order (the products themselves, their collections, their ratings), but not on stock or images.
-- A list keeps the page it found (ids and total) while `matches` stays; an order does not void it.
CREATE TRIGGER `products_matches_insert` AFTER INSERT ON `products` BEGIN
  INSERT INTO catalog_versions(store_id, version, matches) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET matches = matches + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `products_matches_update` AFTER UPDATE ON `products` BEGIN
  INSERT INTO catalog_versions(store_id, version, matches) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET matches = matches + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `products_matches_delete` AFTER DELETE ON `products` BEGIN
  INSERT INTO catalog_versions(store_id, version, matches) SELECT id, 1, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET matches = matches + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_ratings_matches_insert` AFTER INSERT ON `product_ratings` BEGIN
  INSERT INTO catalog_versions(store_id, version, matches) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET matches = matches + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_ratings_matches_update` AFTER UPDATE ON `product_ratings` BEGIN
  INSERT INTO catalog_versions(store_id, version, matches) SELECT id, 1, 1 FROM stores WHERE id = new.store_id ON CONFLICT(store_id) DO UPDATE SET matches = matches + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_ratings_matches_delete` AFTER DELETE ON `product_ratings` BEGIN
  INSERT INTO catalog_versions(store_id, version, matches) SELECT id, 1, 1 FROM stores WHERE id = old.store_id ON CONFLICT(store_id) DO UPDATE SET matches = matches + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_collections_matches_insert` AFTER INSERT ON `product_collections` BEGIN
  INSERT INTO catalog_versions(store_id, version, matches) SELECT id, 1, 1 FROM stores WHERE id = (SELECT store_id FROM products WHERE id = new.product_id) ON CONFLICT(store_id) DO UPDATE SET matches = matches + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `product_collections_matches_delete` AFTER DELETE ON `product_collections` BEGIN
  INSERT INTO catalog_versions(store_id, version, matches) SELECT id, 1, 1 FROM stores WHERE id = (SELECT store_id FROM products WHERE id = old.product_id) ON CONFLICT(store_id) DO UPDATE SET matches = matches + 1;
END;
