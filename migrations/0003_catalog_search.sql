-- Kept by the database so that no code path can forget them (see src/features/catalog/tables.ts).

-- Product search over name, every live variant sku and description, ignoring case and accents.
-- The rowid of each row is products.seq; prefixes of 2 and 3 characters are indexed for type-ahead.
CREATE VIRTUAL TABLE `product_search` USING fts5(name, skus, description, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
--> statement-breakpoint
CREATE TRIGGER `products_search_insert` AFTER INSERT ON `products` WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO product_search(rowid, name, skus, description) VALUES (new.seq, new.name, '', new.description);
END;
--> statement-breakpoint
CREATE TRIGGER `products_search_update` AFTER UPDATE OF name, description, deleted_at ON `products` BEGIN
  DELETE FROM product_search WHERE rowid = old.seq;
  INSERT INTO product_search(rowid, name, skus, description)
    SELECT new.seq, new.name,
      (SELECT coalesce(group_concat(v.sku, ' '), '') FROM variants v WHERE v.product_id = new.id AND v.deleted_at IS NULL),
      new.description
    WHERE new.deleted_at IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `products_search_delete` AFTER DELETE ON `products` BEGIN
  DELETE FROM product_search WHERE rowid = old.seq;
END;
--> statement-breakpoint
-- A variant's sku joins its product's search row; a touch of the product's name re-indexes the row.
CREATE TRIGGER `variants_search_insert` AFTER INSERT ON `variants` BEGIN
  UPDATE products SET name = name WHERE id = new.product_id;
END;
--> statement-breakpoint
CREATE TRIGGER `variants_search_update` AFTER UPDATE OF sku, deleted_at ON `variants` BEGIN
  UPDATE products SET name = name WHERE id = new.product_id;
END;
--> statement-breakpoint
-- products.price_cents is the lowest price among the product's live variants.
CREATE TRIGGER `variants_price_insert` AFTER INSERT ON `variants` BEGIN
  UPDATE products SET price_cents = coalesce(
    (SELECT min(price_cents) FROM variants WHERE product_id = new.product_id AND deleted_at IS NULL), price_cents)
  WHERE id = new.product_id;
END;
--> statement-breakpoint
CREATE TRIGGER `variants_price_update` AFTER UPDATE OF price_cents, deleted_at ON `variants` BEGIN
  UPDATE products SET price_cents = coalesce(
    (SELECT min(price_cents) FROM variants WHERE product_id = new.product_id AND deleted_at IS NULL), price_cents)
  WHERE id = new.product_id;
END;
--> statement-breakpoint
-- product_counts: live products per store and state.
CREATE TRIGGER `products_count_insert` AFTER INSERT ON `products` WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO product_counts(store_id, state, n) VALUES (new.store_id, new.state, 1)
    ON CONFLICT(store_id, state) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `products_count_update` AFTER UPDATE OF state, deleted_at ON `products` BEGIN
  UPDATE product_counts SET n = n - 1 WHERE old.deleted_at IS NULL AND store_id = old.store_id AND state = old.state;
  INSERT INTO product_counts(store_id, state, n) SELECT new.store_id, new.state, 1 WHERE new.deleted_at IS NULL
    ON CONFLICT(store_id, state) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `products_count_delete` AFTER DELETE ON `products` WHEN old.deleted_at IS NULL BEGIN
  UPDATE product_counts SET n = n - 1 WHERE store_id = old.store_id AND state = old.state;
END;
--> statement-breakpoint
-- Every product has its review summary row from the start (zeros until the first review).
CREATE TRIGGER `products_rating_insert` AFTER INSERT ON `products` BEGIN
  INSERT INTO product_ratings(product_id, store_id) VALUES (new.id, new.store_id);
END;
