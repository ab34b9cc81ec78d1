"""A source's short citation (citations.cite): its author or venue and year; a source that prints
neither is named by its title, except beside its title (the claims page's headings), where the
title would stand for an author."""

from tuninglab.evidence.citations import cite

UNSIGNED = {"title": "Benchmarking de parâmetros InnoDB", "author": "", "venue": "", "year": 2009}


def test_an_author_is_cited_with_the_year():
    assert cite({"title": "T", "author": "Peter Zaitsev", "year": 2004}) == "Peter Zaitsev, 2004"
    assert cite({"title": "T", "author": "", "venue": "A blog", "year": 2008}) == "A blog, 2008"


def test_an_unsigned_source_is_named_by_its_title_unless_beside_it():
    assert cite(UNSIGNED) == "Benchmarking de parâmetros InnoDB, 2009"
    assert cite(UNSIGNED, beside_title=True) == "unknown author, 2009"


def test_the_claims_page_puts_no_title_where_an_author_stands(built):
    page = (built / "claims" / "index.html").read_text()
    assert "(Benchmarking de parâmetros InnoDB, 2009)" not in page
    assert "(unknown author, 2009)" in page
