"""`{% once_per key %}`: a block rendered once per key in one render of a page."""

from __future__ import annotations

from django import template

register = template.Library()


class OncePerNode(template.Node):
    def __init__(self, key: template.base.FilterExpression, nodelist: template.NodeList):
        self.key, self.nodelist = key, nodelist

    def render(self, context) -> str:
        # The render context's first dict lives for one render of the page (or fragment); each
        # partial and include pushes a dict of its own over it, so a cache kept in the top one would
        # last one row (IncludeNode keeps its template cache in dicts[0] for the same reason).
        rendered = context.render_context.dicts[0].setdefault(self, {})
        key = self.key.resolve(context)
        if key not in rendered:
            rendered[key] = self.nodelist.render(context)
        return rendered[key]


@register.tag
def once_per(parser, token):
    """`{% once_per key %}…{% endonce_per %}`: the block rendered once per key in one render of the page.

    For a block that depends on the key alone (a way's current criteria and body, repeated under
    every row of that way on a page of turns): later rows with the same key reuse the HTML.
    """
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("once_per takes one argument: the key")
    nodelist = parser.parse(("endonce_per",))
    parser.delete_first_token()
    return OncePerNode(parser.compile_filter(bits[1]), nodelist)
