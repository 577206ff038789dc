-- Grows the posts a reference server published (the templates) to :total posts, exactly as the store would have
-- written them: each clone is a template's row_post row with a new id and an older creation time (one a minute,
-- going back from the oldest template), and a copy of every ls_/ix_ entry the template has, re-keyed and
-- re-positioned (the author-month entry re-computed). The trigram and tag GIN indexes are dropped for the load and rebuilt after it. Run with
-- psql -v total=N (bench.sh does); the caller runs VACUUM ANALYZE afterwards.
\set ON_ERROR_STOP 1
SET maintenance_work_mem = '1GB';
SET synchronous_commit = off;

CREATE TEMP TABLE template AS
    SELECT key, row_number() OVER (ORDER BY key) - 1 AS i FROM public.row_post;
SELECT count(*) AS templates, :total - count(*) AS clones,
       (SELECT min(sort_micros) FROM public.ls_posts_created_at) / 1000000 * 1000000 AS oldest
FROM template \gset

CREATE TEMP TABLE clone AS
    SELECT gen_random_uuid() AS id, t.key AS template, :oldest::bigint - g::bigint * 60000000 AS micros
    FROM generate_series(1, :clones) AS g JOIN template t ON t.i = g % :templates;

CREATE TEMP TABLE gin AS
    SELECT indexname, indexdef FROM pg_indexes
    WHERE schemaname = 'public' AND tablename = 'row_post' AND indexdef LIKE '%USING gin%';
SELECT format('DROP INDEX public.%I', indexname) FROM gin \gexec

INSERT INTO public.row_post (key, doc, search_text, search_tags, sort_micros, sort_id, author_id, is_anonymous)
SELECT c.id::text,
       jsonb_build_object('post', (r.doc->'post') || jsonb_build_object(
           'id', c.id::text,
           'createdAt', to_char(to_timestamp(c.micros / 1000000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
           'updatedAt', to_char(to_timestamp(c.micros / 1000000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
           'day', to_char(to_timestamp(c.micros / 1000000) AT TIME ZONE 'UTC', 'YYYY-MM-DD'))),
       r.search_text, r.search_tags, c.micros, c.id, r.author_id, r.is_anonymous
FROM clone c JOIN public.row_post r ON r.key = c.template;

SELECT format(
    'INSERT INTO public.%I (partition, sort_micros, sort_id, key, author_id, is_anonymous) '
    'SELECT l.partition, c.micros, c.id, c.id::text, l.author_id, l.is_anonymous '
    'FROM clone c JOIN public.%I l ON l.key = c.template', tablename, tablename)
FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'ls\_%' \gexec

SELECT format(
    'INSERT INTO public.%I (value, key, author_id, is_anonymous) '
    'SELECT i.value, c.id::text, i.author_id, i.is_anonymous FROM clone c JOIN public.%I i ON i.key = c.template',
    tablename, tablename)
FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'ix\_%' AND tablename <> 'ix_posts_author_month' \gexec

-- The one entry whose value depends on the creation time: the author and the month of the post's day (the authors'
-- time zone is GMT, as the seed signs them up), spelled as the store spells it (`<author>|<year>-<month>`).
INSERT INTO public.ix_posts_author_month (value, key, author_id, is_anonymous)
SELECT split_part(i.value, '|', 1) || '|' || extract(year FROM to_timestamp(c.micros / 1000000) AT TIME ZONE 'UTC')::int
       || '-' || extract(month FROM to_timestamp(c.micros / 1000000) AT TIME ZONE 'UTC')::int,
       c.id::text, i.author_id, i.is_anonymous
FROM clone c JOIN public.ix_posts_author_month i ON i.key = c.template;

SELECT indexdef FROM gin \gexec
