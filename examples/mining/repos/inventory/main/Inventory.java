package org.example.inventory;

import java.util.HashMap;
import java.util.Map;

public class Inventory {
    private final Map<String, Item> items = new HashMap<>();

    public void add(Item item) {
        items.put(item.getName(), item);
    }

    public Item find(String name) {
        return items.get(name);
    }
}
