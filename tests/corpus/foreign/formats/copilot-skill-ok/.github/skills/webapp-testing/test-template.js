// template
