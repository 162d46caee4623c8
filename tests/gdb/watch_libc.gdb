break 20
continue
watch st.a[30]
continue
up
continue
up
continue
up
continue
reverse-continue
reverse-continue
up
reverse-continue
up
reverse-continue
up
reverse-continue
print st.a[30]
