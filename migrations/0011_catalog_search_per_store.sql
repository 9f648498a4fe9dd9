-- Hand-written: the search index learns which store each product belongs to, and its state.
-- One index serves every store, so a search used to find the matches of every store and look each one
-- up to keep its own: a small store's first search paid for the big store's catalog. The column
-- `store` holds two words: the store id without its underscore (`str_ab12` is `strab12`), and that
-- word followed by the product's state (`strab12published`). A search names one of them
-- (src/features/catalog/search.ts), so it finds its own store's products, of that state if asked,
-- and counts them inside the index.
DROP TRIGGER `products_search_insert`;
--> statement-breakpoint
DROP TRIGGER `products_search_update`;
--> statement-breakpoint
DROP TRIGGER `products_search_delete`;
--> statement-breakpoint
ALTER TABLE `product_search` RENAME TO `product_search_before`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `product_search` USING fts5(name, skus, description, store, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
--> statement-breakpoint
INSERT INTO product_search(rowid, name, skus, description, store)
  SELECT s.rowid, s.name, s.skus, s.description, replace(p.store_id, '_', '') || ' ' || replace(p.store_id, '_', '') || p.state
  FROM product_search_before s JOIN products p ON p.seq = s.rowid;
--> statement-breakpoint
DROP TABLE `product_search_before`;
--> statement-breakpoint
CREATE TRIGGER `products_search_insert` AFTER INSERT ON `products` WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO product_search(rowid, name, skus, description, store)
    VALUES (new.seq, new.name, '', new.description, replace(new.store_id, '_', '') || ' ' || replace(new.store_id, '_', '') || new.state);
END;
--> statement-breakpoint
CREATE TRIGGER `products_search_update` AFTER UPDATE OF name, description, deleted_at, state, store_id ON `products` BEGIN
  DELETE FROM product_search WHERE rowid = old.seq;
  INSERT INTO product_search(rowid, name, skus, description, store)
    SELECT new.seq, new.name,
      (SELECT coalesce(group_concat(v.sku, ' '), '') FROM variants v WHERE v.product_id = new.id AND v.deleted_at IS NULL),
      new.description,
      replace(new.store_id, '_', '') || ' ' || replace(new.store_id, '_', '') || new.state
    WHERE new.deleted_at IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `products_search_delete` AFTER DELETE ON `products` BEGIN
  DELETE FROM product_search WHERE rowid = old.seq;
END;
