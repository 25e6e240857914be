-- The operations of this application's and sync group's rounds (this one netted, earlier
-- attempts that crashed): gone once netted.
DELETE FROM ${ops} WHERE application_name = %s AND sync_name = %s
