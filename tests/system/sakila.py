"""Sakila's tables as MySQL's sample database declares them (written out here: the sample
is not part of the repository): the same tables, columns, types, keys, indexes and all 22
foreign keys with their rules (ON UPDATE CASCADE everywhere, ON DELETE SET NULL from
``payment`` to ``rental``, RESTRICT otherwise), the ``staff``/``store`` cycle included.
``film_text`` (a full-text copy kept by triggers) is left out. A small load, made here."""

from __future__ import annotations

from typing import Any

TS = "last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP"
FK = "ON DELETE RESTRICT ON UPDATE CASCADE"

SCHEMA = [
    f"""CREATE TABLE actor (actor_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
      first_name VARCHAR(45) NOT NULL, last_name VARCHAR(45) NOT NULL, {TS},
      PRIMARY KEY (actor_id), KEY idx_actor_last_name (last_name))""",
    f"""CREATE TABLE country (country_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
      country VARCHAR(50) NOT NULL, {TS}, PRIMARY KEY (country_id))""",
    f"""CREATE TABLE city (city_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
      city VARCHAR(50) NOT NULL, country_id SMALLINT UNSIGNED NOT NULL, {TS},
      PRIMARY KEY (city_id), KEY idx_fk_country_id (country_id),
      CONSTRAINT fk_city_country FOREIGN KEY (country_id) REFERENCES country (country_id) {FK})""",
    f"""CREATE TABLE address (address_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
      address VARCHAR(50) NOT NULL, address2 VARCHAR(50) DEFAULT NULL,
      district VARCHAR(20) NOT NULL, city_id SMALLINT UNSIGNED NOT NULL,
      postal_code VARCHAR(10) DEFAULT NULL, phone VARCHAR(20) NOT NULL,
      location GEOMETRY NOT NULL, {TS}, PRIMARY KEY (address_id),
      KEY idx_fk_city_id (city_id), SPATIAL KEY idx_location (location),
      CONSTRAINT fk_address_city FOREIGN KEY (city_id) REFERENCES city (city_id) {FK})""",
    f"""CREATE TABLE category (category_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT,
      name VARCHAR(25) NOT NULL, {TS}, PRIMARY KEY (category_id))""",
    f"""CREATE TABLE staff (staff_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT,
      first_name VARCHAR(45) NOT NULL, last_name VARCHAR(45) NOT NULL,
      address_id SMALLINT UNSIGNED NOT NULL, picture BLOB DEFAULT NULL,
      email VARCHAR(50) DEFAULT NULL, store_id TINYINT UNSIGNED NOT NULL,
      active BOOLEAN NOT NULL DEFAULT TRUE, username VARCHAR(16) NOT NULL,
      password VARCHAR(40) BINARY DEFAULT NULL, {TS}, PRIMARY KEY (staff_id),
      KEY idx_fk_store_id (store_id), KEY idx_fk_address_id (address_id),
      CONSTRAINT fk_staff_store FOREIGN KEY (store_id) REFERENCES store (store_id) {FK},
      CONSTRAINT fk_staff_address FOREIGN KEY (address_id) REFERENCES address (address_id)
      {FK})""",
    f"""CREATE TABLE store (store_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT,
      manager_staff_id TINYINT UNSIGNED NOT NULL, address_id SMALLINT UNSIGNED NOT NULL,
      {TS}, PRIMARY KEY (store_id), UNIQUE KEY idx_unique_manager (manager_staff_id),
      KEY idx_fk_address_id (address_id),
      CONSTRAINT fk_store_staff FOREIGN KEY (manager_staff_id) REFERENCES staff (staff_id)
      {FK},
      CONSTRAINT fk_store_address FOREIGN KEY (address_id) REFERENCES address (address_id)
      {FK})""",
    f"""CREATE TABLE customer (customer_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
      store_id TINYINT UNSIGNED NOT NULL, first_name VARCHAR(45) NOT NULL,
      last_name VARCHAR(45) NOT NULL, email VARCHAR(50) DEFAULT NULL,
      address_id SMALLINT UNSIGNED NOT NULL, active BOOLEAN NOT NULL DEFAULT TRUE,
      create_date DATETIME NOT NULL, last_update TIMESTAMP DEFAULT CURRENT_TIMESTAMP
      ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (customer_id), KEY idx_fk_store_id (store_id),
      KEY idx_fk_address_id (address_id), KEY idx_last_name (last_name),
      CONSTRAINT fk_customer_address FOREIGN KEY (address_id)
      REFERENCES address (address_id) {FK},
      CONSTRAINT fk_customer_store FOREIGN KEY (store_id) REFERENCES store (store_id) {FK})""",
    f"""CREATE TABLE language (language_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT,
      name CHAR(20) NOT NULL, {TS}, PRIMARY KEY (language_id))""",
    f"""CREATE TABLE film (film_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
      title VARCHAR(128) NOT NULL, description TEXT DEFAULT NULL, release_year YEAR DEFAULT NULL,
      language_id TINYINT UNSIGNED NOT NULL, original_language_id TINYINT UNSIGNED DEFAULT NULL,
      rental_duration TINYINT UNSIGNED NOT NULL DEFAULT 3,
      rental_rate DECIMAL(4,2) NOT NULL DEFAULT 4.99, length SMALLINT UNSIGNED DEFAULT NULL,
      replacement_cost DECIMAL(5,2) NOT NULL DEFAULT 19.99,
      rating ENUM('G','PG','PG-13','R','NC-17') DEFAULT 'G',
      special_features SET('Trailers','Commentaries','Deleted Scenes','Behind the Scenes')
      DEFAULT NULL, {TS}, PRIMARY KEY (film_id), KEY idx_title (title),
      KEY idx_fk_language_id (language_id),
      KEY idx_fk_original_language_id (original_language_id),
      CONSTRAINT fk_film_language FOREIGN KEY (language_id)
      REFERENCES language (language_id) {FK},
      CONSTRAINT fk_film_language_original FOREIGN KEY (original_language_id)
      REFERENCES language (language_id) {FK})""",
    f"""CREATE TABLE film_actor (actor_id SMALLINT UNSIGNED NOT NULL,
      film_id SMALLINT UNSIGNED NOT NULL, {TS}, PRIMARY KEY (actor_id, film_id),
      KEY idx_fk_film_id (film_id),
      CONSTRAINT fk_film_actor_actor FOREIGN KEY (actor_id) REFERENCES actor (actor_id) {FK},
      CONSTRAINT fk_film_actor_film FOREIGN KEY (film_id) REFERENCES film (film_id) {FK})""",
    f"""CREATE TABLE film_category (film_id SMALLINT UNSIGNED NOT NULL,
      category_id TINYINT UNSIGNED NOT NULL, {TS}, PRIMARY KEY (film_id, category_id),
      CONSTRAINT fk_film_category_film FOREIGN KEY (film_id) REFERENCES film (film_id) {FK},
      CONSTRAINT fk_film_category_category FOREIGN KEY (category_id)
      REFERENCES category (category_id) {FK})""",
    f"""CREATE TABLE inventory (inventory_id MEDIUMINT UNSIGNED NOT NULL AUTO_INCREMENT,
      film_id SMALLINT UNSIGNED NOT NULL, store_id TINYINT UNSIGNED NOT NULL, {TS},
      PRIMARY KEY (inventory_id), KEY idx_fk_film_id (film_id),
      KEY idx_store_id_film_id (store_id, film_id),
      CONSTRAINT fk_inventory_store FOREIGN KEY (store_id) REFERENCES store (store_id) {FK},
      CONSTRAINT fk_inventory_film FOREIGN KEY (film_id) REFERENCES film (film_id) {FK})""",
    f"""CREATE TABLE rental (rental_id INT NOT NULL AUTO_INCREMENT,
      rental_date DATETIME NOT NULL, inventory_id MEDIUMINT UNSIGNED NOT NULL,
      customer_id SMALLINT UNSIGNED NOT NULL, return_date DATETIME DEFAULT NULL,
      staff_id TINYINT UNSIGNED NOT NULL, {TS}, PRIMARY KEY (rental_id),
      UNIQUE KEY (rental_date, inventory_id, customer_id),
      KEY idx_fk_inventory_id (inventory_id), KEY idx_fk_customer_id (customer_id),
      KEY idx_fk_staff_id (staff_id),
      CONSTRAINT fk_rental_staff FOREIGN KEY (staff_id) REFERENCES staff (staff_id) {FK},
      CONSTRAINT fk_rental_inventory FOREIGN KEY (inventory_id)
      REFERENCES inventory (inventory_id) {FK},
      CONSTRAINT fk_rental_customer FOREIGN KEY (customer_id)
      REFERENCES customer (customer_id) {FK})""",
    """CREATE TABLE payment (payment_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
      customer_id SMALLINT UNSIGNED NOT NULL, staff_id TINYINT UNSIGNED NOT NULL,
      rental_id INT DEFAULT NULL, amount DECIMAL(5,2) NOT NULL, payment_date DATETIME NOT NULL,
      last_update TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
      PRIMARY KEY (payment_id), KEY idx_fk_staff_id (staff_id),
      KEY idx_fk_customer_id (customer_id),
      CONSTRAINT fk_payment_rental FOREIGN KEY (rental_id) REFERENCES rental (rental_id)
      ON DELETE SET NULL ON UPDATE CASCADE,
      CONSTRAINT fk_payment_customer FOREIGN KEY (customer_id)
      REFERENCES customer (customer_id) ON DELETE RESTRICT ON UPDATE CASCADE,
      CONSTRAINT fk_payment_staff FOREIGN KEY (staff_id) REFERENCES staff (staff_id)
      ON DELETE RESTRICT ON UPDATE CASCADE)""",
]
TABLES = [
    "actor", "address", "category", "city", "country", "customer", "film", "film_actor",
    "film_category", "inventory", "language", "payment", "rental", "staff", "store",
]  # fmt: skip
KEYS = {"film_actor": "actor_id, film_id", "film_category": "film_id, category_id"}


def key(table: str) -> str:
    return KEYS.get(table, f"{table}_id")


def create(conn: Any) -> None:
    """The tables, as the sample's script makes them (foreign key checks off: a cycle)."""
    cur = conn.cursor()
    cur.execute("SET FOREIGN_KEY_CHECKS = 0")
    for stmt in SCHEMA:
        cur.execute(stmt + " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
    cur.execute("SET FOREIGN_KEY_CHECKS = 1")


def load(conn: Any, n: int = 6) -> None:
    """A small load: ``n`` customers, films, actors and the rows that go with them."""
    cur = conn.cursor()
    cur.execute("SET FOREIGN_KEY_CHECKS = 0")
    ins = cur.executemany
    ins("INSERT INTO country (country_id, country) VALUES (%s, %s)", [(1, "A"), (2, "B")])
    ins("INSERT INTO city (city_id, city, country_id) VALUES (%s, %s, %s)",
        [(1, "X", 1), (2, "Y", 2)])  # fmt: skip
    ins(
        "INSERT INTO address (address_id, address, district, city_id, postal_code, phone, "
        "location) VALUES (%s, %s, 'd', %s, '123', '555', ST_GeomFromText(%s))",
        [(i, f"{i} Main St", 1 + i % 2, f"POINT({i} {i + 0.5})") for i in range(1, n + 3)],
    )
    ins("INSERT INTO language (language_id, name) VALUES (%s, %s)",
        [(1, "English"), (2, "Italian"), (3, "Japanese")])  # fmt: skip
    ins("INSERT INTO category (category_id, name) VALUES (%s, %s)", [(1, "Action"), (2, "Drama")])
    ins(
        "INSERT INTO staff (staff_id, first_name, last_name, address_id, picture, store_id, "
        "username, password) VALUES (%s, %s, 'S', %s, %s, %s, %s, %s)",
        [(1, "Mike", 1, b"\x89PNG\x00\x01", 1, "mike", "8cb2237d0679ca88db6464eac60da96345513964"),
         (2, "Jon", 2, None, 2, "jon", None)],
    )  # fmt: skip
    ins("INSERT INTO store (store_id, manager_staff_id, address_id) VALUES (%s, %s, %s)",
        [(1, 1, 1), (2, 2, 2)])  # fmt: skip
    ins(
        "INSERT INTO customer (customer_id, store_id, first_name, last_name, email, address_id, "
        "active, create_date) VALUES (%s, %s, %s, 'C', %s, %s, %s, '2006-02-14 22:04:36')",
        [(i, 1 + i % 2, f"c{i}", f"c{i}@x", 2 + i, i % 3 != 0) for i in range(1, n + 1)],
    )
    ins(
        "INSERT INTO film (film_id, title, description, release_year, language_id, "
        "original_language_id, length, rating, special_features) "
        "VALUES (%s, %s, 'A film', 2006, 1, %s, 90, %s, %s)",
        [
            (i, f"FILM {i}", 2 if i % 2 else None, ["G", "PG-13", "NC-17"][i % 3],
             "Trailers,Deleted Scenes" if i % 2 else None)
            for i in range(1, n + 1)
        ],
    )  # fmt: skip
    ins("INSERT INTO actor (actor_id, first_name, last_name) VALUES (%s, %s, 'A')",
        [(i, f"a{i}") for i in range(1, n + 1)])  # fmt: skip
    ins("INSERT INTO film_actor (actor_id, film_id) VALUES (%s, %s)",
        [(a, f) for a in range(1, n + 1) for f in range(1, n + 1) if (a + f) % 2])  # fmt: skip
    ins("INSERT INTO film_category (film_id, category_id) VALUES (%s, %s)",
        [(f, 1 + f % 2) for f in range(1, n + 1)])  # fmt: skip
    ins("INSERT INTO inventory (inventory_id, film_id, store_id) VALUES (%s, %s, %s)",
        [(i, 1 + i % n, 1 + i % 2) for i in range(1, 2 * n + 1)])  # fmt: skip
    rentals = [(r, 1 + r % (2 * n), 1 + r % n, 1 + r % 2) for r in range(1, 3 * n + 1)]
    ins(
        "INSERT INTO rental (rental_id, rental_date, inventory_id, customer_id, staff_id) "
        "VALUES (%s, '2005-05-24 22:53:30' + INTERVAL %s DAY, %s, %s, %s)",
        [(r, r, *rest) for r, *rest in rentals],
    )
    ins(
        "INSERT INTO payment (payment_id, customer_id, staff_id, rental_id, amount, "
        "payment_date) VALUES (%s, %s, %s, %s, %s, '2005-05-25 11:30:37')",
        [(r, c, s, r, f"{r % 7}.99") for r, _, c, s in rentals],
    )
    cur.execute("SET FOREIGN_KEY_CHECKS = 1")
